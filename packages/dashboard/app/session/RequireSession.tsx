import type { ReactNode } from "react";
import { Navigate, useLocation } from "react-router";
import { useSession, type LoginState } from "./session.tsx";

/** Pages behind it need a session; without one the user signs in and comes back here. */
export function RequireSession({ children }: { children: ReactNode }) {
  const { session } = useSession();
  const location = useLocation();
  if (session !== undefined) return children;
  const state: LoginState = { from: `${location.pathname}${location.search}` };
  return <Navigate to="/login" replace state={state} />;
}
