import type { ReactNode } from "react";
import { ErrorMessage } from "./ErrorMessage.tsx";

export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> Loading {what}…
    </p>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children}
    </div>
  );
}

interface QueryLike<T> {
  data: T | undefined;
  error: unknown;
  isPending: boolean;
}

/**
 * The three designed states of anything fetched: loading, failed (with the API's message), and
 * loaded. Once loaded, a later failed refresh keeps the data and shows the error above it.
 */
export function QueryState<T>({
  query,
  what,
  children,
}: {
  query: QueryLike<T>;
  what: string;
  children: (data: T) => ReactNode;
}) {
  if (query.data !== undefined) {
    return (
      <>
        <ErrorMessage error={query.error} />
        {children(query.data)}
      </>
    );
  }
  if (query.isPending && query.error === null) return <Loading what={what} />;
  return <ErrorMessage error={query.error ?? new Error(`Could not load ${what}.`)} />;
}
