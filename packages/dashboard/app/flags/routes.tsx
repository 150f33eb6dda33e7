import { Link, type RouteObject } from "react-router";
import { RequireAccess } from "../session/RequireAccess.tsx";
import { FlagDetailPage } from "./FlagDetailPage.tsx";
import { EditFlagPage, NewFlagPage } from "./FlagFormPage.tsx";
import { FlagListPage } from "./FlagListPage.tsx";

export const flagRoutes: RouteObject[] = [
  { path: "/flags", element: <FlagListPage /> },
  {
    path: "/flags/new",
    element: (
      <RequireAccess
        route="POST /api/v1/flags"
        scope="somewhere"
        action="create flags"
        back={<Link to="/flags">Back to the flags</Link>}
      >
        <NewFlagPage />
      </RequireAccess>
    ),
  },
  { path: "/flags/:clusterId/:namespace/:name", element: <FlagDetailPage /> },
  {
    path: "/flags/:clusterId/:namespace/:name/edit",
    element: (
      <RequireAccess
        route="PUT /api/v1/flags/{namespace}/{name}"
        scope="flag-in-path"
        action="edit flags"
        back={
          <Link to=".." relative="path">
            Back to the flag
          </Link>
        }
      >
        <EditFlagPage />
      </RequireAccess>
    ),
  },
];
