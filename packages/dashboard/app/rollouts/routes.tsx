import { Link, type RouteObject } from "react-router";
import { RequireAccess } from "../session/RequireAccess.tsx";
import { NewRolloutPage } from "./NewRolloutPage.tsx";
import { RolloutPage } from "./RolloutPage.tsx";
import { RolloutsPage } from "./RolloutsPage.tsx";

export const rolloutRoutes: RouteObject[] = [
  { path: "/rollouts", element: <RolloutsPage /> },
  {
    path: "/rollouts/new",
    element: (
      <RequireAccess
        route="POST /api/v1/rollouts"
        scope="somewhere"
        action="create rollouts"
        back={<Link to="/rollouts">Back to the rollouts</Link>}
      >
        <NewRolloutPage />
      </RequireAccess>
    ),
  },
  { path: "/rollouts/:name", element: <RolloutPage /> },
];
