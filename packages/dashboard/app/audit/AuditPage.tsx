import { useState } from "react";
import { ErrorMessage } from "../ui/ErrorMessage.tsx";
import { PageHeader } from "../ui/PageHeader.tsx";
import { EmptyState, QueryState } from "../ui/states.tsx";
import { AuditFilters } from "./AuditFilters.tsx";
import { newerPosition, olderPosition, pageOf, type PagePosition } from "./audit-paging.ts";
import { AuditTable } from "./AuditTable.tsx";
import {
  AUDIT_EXPORT_LIMIT,
  AUDIT_PAGE_SIZES,
  exportFileName,
  hasFilter,
  searchFromAuditView,
  withFilter,
  type AuditFilter,
} from "./audit-view.ts";
import { downloadText } from "./download.ts";
import { fetchAuditCsv, useAuditPage } from "./queries.ts";
import { useAuditPosition } from "./useAuditPosition.ts";

/** Downloads the CSV of the current filter; a failure shows next to the button. */
function ExportButton({ filter }: { filter: AuditFilter }) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>();
  const exportCsv = async () => {
    setPending(true);
    setError(undefined);
    try {
      downloadText(exportFileName(new Date()), await fetchAuditCsv(filter), "text/csv;charset=utf-8");
    } catch (caught) {
      setError(caught);
    } finally {
      setPending(false);
    }
  };
  return (
    <div className="audit-export">
      <button
        type="button"
        disabled={pending}
        title={`The newest ${AUDIT_EXPORT_LIMIT.toLocaleString()} events that match the filters`}
        onClick={() => void exportCsv()}
      >
        {pending ? "Exporting…" : "Export CSV"}
      </button>
      <ErrorMessage error={error} />
    </div>
  );
}

/** Newer and older pages, and how many events a page shows. */
function AuditPager({
  at,
  olderCursor,
  moving,
  go,
}: {
  at: PagePosition;
  olderCursor: number | undefined;
  /** While the next page loads (the previous one stays on screen). */
  moving: boolean;
  go: (position: PagePosition) => void;
}) {
  const view = at.view;
  return (
    <nav className="pager" aria-label="Audit pages">
      <button
        type="button"
        disabled={view.before === undefined || moving}
        onClick={() => {
          go(newerPosition(at));
        }}
      >
        ← Newer
      </button>
      <button
        type="button"
        disabled={olderCursor === undefined || moving}
        onClick={() => {
          if (olderCursor !== undefined) go(olderPosition(at, olderCursor));
        }}
      >
        Older →
      </button>
      <label className="pager-size">
        <span>Events per page</span>
        <select
          value={view.pageSize}
          onChange={(e) => {
            go({
              view: { ...view, pageSize: Number(e.target.value), before: undefined },
              trail: [],
            });
          }}
        >
          {AUDIT_PAGE_SIZES.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </select>
      </label>
      <span className="hint" role="status">
        {view.before === undefined ? "Newest events, updated live" : "Older events"}
      </span>
    </nav>
  );
}

/**
 * The audit log: filters and page in the URL (so a view can be shared and survives a reload),
 * newest first, paged with the API's `before=<id>` cursor; the newest page updates live.
 */
export function AuditPage() {
  const { at, go } = useAuditPosition();
  const view = at.view;
  const query = useAuditPage(view);
  const filterKey = searchFromAuditView({ ...view, before: undefined }).toString();

  return (
    <>
      <PageHeader title="Audit log" actions={<ExportButton filter={view.filter} />} />
      <AuditFilters
        key={filterKey}
        filter={view.filter}
        onApply={(filter) => {
          go({ view: withFilter(view, filter), trail: [] });
        }}
      />
      <QueryState query={query} what="the audit log">
        {(fetched) => {
          const page = pageOf(fetched, view.pageSize);
          return (
            <>
              {page.events.length === 0 ? (
                <EmptyState
                  title={
                    hasFilter(view.filter) ? "No audit events match these filters" : "No audit events yet"
                  }
                />
              ) : (
                <AuditTable events={page.events} />
              )}
              <AuditPager at={at} olderCursor={page.olderCursor} moving={query.isPlaceholderData} go={go} />
            </>
          );
        }}
      </QueryState>
    </>
  );
}
