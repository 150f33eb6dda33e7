import type { RouteObject } from "react-router";
import { FlagListPage } from "./FlagListPage.tsx";

export const flagRoutes: RouteObject[] = [{ path: "/flags", element: <FlagListPage /> }];
