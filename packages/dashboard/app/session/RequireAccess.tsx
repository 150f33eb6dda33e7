import type { ReactNode } from "react";
import { EmptyState } from "../ui/states.tsx";
import { useCan, useUser } from "./session.tsx";

/**
 * A page only for the roles the API lets call `route` (its access table, as `useCan`). Any other
 * role is told so, with a way back, and the page is not rendered: it would offer a form that
 * cannot be saved and make calls (the edit form's dry-run preview) the API audits as denied.
 */
export function RequireAccess({
  route,
  action,
  back,
  children,
}: {
  route: string;
  /** What the page is for, e.g. "edit flags". */
  action: string;
  back: ReactNode;
  children: ReactNode;
}) {
  const can = useCan();
  const { role } = useUser();
  if (can(route)) return children;
  return (
    <EmptyState title={`Your role (${role}) cannot ${action}`}>
      <p>An admin can give you a role that may.</p>
      {back}
    </EmptyState>
  );
}
