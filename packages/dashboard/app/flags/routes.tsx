import type { RouteObject } from "react-router";
import { FlagDetailPage } from "./FlagDetailPage.tsx";
import { EditFlagPage, NewFlagPage } from "./FlagFormPage.tsx";
import { FlagListPage } from "./FlagListPage.tsx";

export const flagRoutes: RouteObject[] = [
  { path: "/flags", element: <FlagListPage /> },
  { path: "/flags/new", element: <NewFlagPage /> },
  { path: "/flags/:clusterId/:namespace/:name", element: <FlagDetailPage /> },
  { path: "/flags/:clusterId/:namespace/:name/edit", element: <EditFlagPage /> },
];
