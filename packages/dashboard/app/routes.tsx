import { createBrowserRouter, Link, Navigate, Outlet } from "react-router";
import { AccountPage } from "./users/AccountPage.tsx";
import { auditRoutes } from "./audit/routes.tsx";
import { clusterRoutes } from "./clusters/routes.tsx";
import { flagRoutes } from "./flags/routes.tsx";
import { Shell } from "./layout/Shell.tsx";
import { rolloutRoutes } from "./rollouts/routes.tsx";
import { LoginPage } from "./session/LoginPage.tsx";
import { SsoPage } from "./session/SsoPage.tsx";
import { RequireSession } from "./session/RequireSession.tsx";
import { AccessProvider, SessionProvider } from "./session/session.tsx";
import { userRoutes } from "./users/routes.tsx";
import { webhookRoutes } from "./webhooks/routes.tsx";
import { EmptyState } from "./ui/states.tsx";

function NotFound() {
  return (
    <EmptyState title="No such page">
      <Link to="/flags">Go to the flags</Link>
    </EmptyState>
  );
}

/** Each section owns its routes (in its folder); this file only assembles them. */
export const router = createBrowserRouter([
  {
    element: (
      <SessionProvider>
        <Outlet />
      </SessionProvider>
    ),
    children: [
      { path: "/login", element: <LoginPage /> },
      { path: "/sso", element: <SsoPage /> },
      {
        element: (
          <RequireSession>
            <AccessProvider>
              <Shell />
            </AccessProvider>
          </RequireSession>
        ),
        children: [
          { index: true, element: <Navigate to="/flags" replace /> },
          ...flagRoutes,
          ...rolloutRoutes,
          ...clusterRoutes,
          ...auditRoutes,
          ...userRoutes,
          ...webhookRoutes,
          { path: "/account", element: <AccountPage /> },
          { path: "*", element: <NotFound /> },
        ],
      },
    ],
  },
]);
