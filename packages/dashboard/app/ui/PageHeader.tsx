import { useEffect, type ReactNode } from "react";

/** A page's title (also the document title) and its actions. */
export function PageHeader({ title, actions }: { title: string; actions?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · svc`;
  }, [title]);
  return (
    <header className="page-header">
      <h1>{title}</h1>
      {actions !== undefined && <div className="page-actions">{actions}</div>}
    </header>
  );
}
