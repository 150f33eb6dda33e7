import type { ReactNode } from "react";
import { useParams } from "react-router";
import { EmptyState } from "../ui/states.tsx";
import { useAccess, useUser } from "./session.tsx";

/**
 * Where the page's route needs its role: "global" (the global role: webhooks), "somewhere" (any
 * grant may allow it: a form that then offers only the clusters and namespaces allowed), or
 * "flag-in-path" (the :clusterId and :namespace of the page's path).
 */
export type AccessScope = "global" | "somewhere" | "flag-in-path";

/**
 * A page only for the users the API lets call `route` (its access table, as `useAccess`). Anyone
 * else is told so, with a way back, and the page is not rendered: it would offer a form that
 * cannot be saved and make calls (the edit form's dry-run preview) the API audits as denied.
 */
export function RequireAccess({
  route,
  scope = "global",
  action,
  back,
  children,
}: {
  route: string;
  scope?: AccessScope;
  /** What the page is for, e.g. "edit flags". */
  action: string;
  back: ReactNode;
  children: ReactNode;
}) {
  const access = useAccess();
  const { role } = useUser();
  const { clusterId = "", namespace = "" } = useParams();
  const allowed =
    scope === "global"
      ? access.can(route)
      : scope === "somewhere"
        ? access.canSomewhere(route)
        : access.canIn(route, { clusterId, namespace });
  if (allowed) return children;
  const where = scope === "flag-in-path" ? ` in namespace ${namespace} of cluster ${clusterId}` : "";
  return (
    <EmptyState title={`Your role (${role}) cannot ${action}${where}`}>
      <p>An admin can give you a role or a grant that may.</p>
      {back}
    </EmptyState>
  );
}
