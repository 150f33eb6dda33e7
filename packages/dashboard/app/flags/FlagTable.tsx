import { deliveryKind, type FlagView } from "@svc/core/browser";
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useRef } from "react";
import { Link } from "react-router";
import { relativeTime } from "../ui/time.ts";
import { FlagPhaseBadge } from "./FlagPhaseBadge.tsx";
import { DeleteFlagButton, FlagEnabledSwitch } from "./FlagRowActions.tsx";
import { flagHref, valueSummary, type ListView, type SortKey } from "./list-model.ts";
import { targetingSummary } from "./targeting-model.ts";

const COLUMNS: { key: SortKey | undefined; label: string }[] = [
  { key: "name", label: "Name" },
  { key: "cluster", label: "Cluster" },
  { key: "namespace", label: "Namespace" },
  { key: "type", label: "Type" },
  { key: undefined, label: "Value" },
  { key: undefined, label: "Delivery" },
  { key: "state", label: "Enabled" },
  { key: "phase", label: "Status" },
  { key: "updated", label: "Updated" },
  { key: undefined, label: "Actions" },
];

const ROW_HEIGHT = 49;

/**
 * Memoized: a page loaded or a poll answered re-renders the table, and TanStack Query keeps the
 * objects of unchanged flags, so only rows whose flag changed render again.
 */
const FlagRow = memo(function FlagRow({ flag }: { flag: FlagView }) {
  const targeting = targetingSummary(flag);
  return (
    <tr>
      <td>
        <Link to={flagHref(flag)} className="strong">
          {flag.name}
        </Link>
        {flag.description !== "" && <div className="hint clip">{flag.description}</div>}
      </td>
      <td>{flag.clusterId}</td>
      <td>{flag.namespace}</td>
      <td>{flag.type}</td>
      <td className="mono clip" title={flag.defaultValue}>
        {valueSummary(flag.defaultValue)}
        {targeting !== undefined && (
          <span className="badge targeting" title="the value differs by context (targeting)">
            {targeting}
          </span>
        )}
      </td>
      <td>{deliveryKind(flag.delivery)}</td>
      <td>
        <FlagEnabledSwitch flag={flag} />
      </td>
      <td>
        <FlagPhaseBadge flag={flag} />
      </td>
      <td title={flag.updatedAt}>{relativeTime(flag.updatedAt)}</td>
      <td>
        <DeleteFlagButton flag={flag} />
      </td>
    </tr>
  );
});

/** Rows rendered past the last one in view before the next page is asked for. */
const NEAR_END_ROWS = 20;

/**
 * Only the rows in view are in the page, so thousands of flags scroll and filter smoothly.
 * Without `sortBy` the headers do not sort (a paged list keeps the server's order); `onNearEnd`
 * is called as the rows in view come near the last row, to load the next page.
 */
export function FlagTable({
  flags,
  view,
  sortBy,
  onNearEnd,
}: {
  flags: FlagView[];
  view: ListView;
  sortBy: ((key: SortKey) => void) | undefined;
  onNearEnd: (() => void) | undefined;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const rows = useVirtualizer({
    count: flags.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const items = rows.getVirtualItems();
  const before = items[0]?.start ?? 0;
  const after = rows.getTotalSize() - (items.at(-1)?.end ?? 0);
  const lastIndex = items.at(-1)?.index ?? -1;
  useEffect(() => {
    if (lastIndex >= flags.length - NEAR_END_ROWS) onNearEnd?.();
  }, [lastIndex, flags.length, onNearEnd]);
  return (
    <div className="table-wrap flag-table" ref={scroller}>
      <table aria-rowcount={flags.length + 1}>
        <thead>
          <tr>
            {COLUMNS.map((column) => {
              const sorted = sortBy !== undefined && column.key === view.sort;
              return (
                <th
                  key={column.label}
                  scope="col"
                  aria-sort={sorted ? (view.direction === "asc" ? "ascending" : "descending") : undefined}
                >
                  {column.key === undefined || sortBy === undefined ? (
                    column.label
                  ) : (
                    <button
                      type="button"
                      className="sort"
                      onClick={() => {
                        if (column.key !== undefined) sortBy(column.key);
                      }}
                    >
                      {column.label}
                      <span aria-hidden="true">{sorted ? (view.direction === "asc" ? " ▲" : " ▼") : ""}</span>
                    </button>
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {before > 0 && (
            <tr aria-hidden="true" className="spacer" style={{ height: before }}>
              <td colSpan={COLUMNS.length} />
            </tr>
          )}
          {items.map((item) => {
            const flag = flags[item.index];
            return flag === undefined ? null : (
              <FlagRow key={`${flag.clusterId}/${flag.namespace}/${flag.name}`} flag={flag} />
            );
          })}
          {after > 0 && (
            <tr aria-hidden="true" className="spacer" style={{ height: after }}>
              <td colSpan={COLUMNS.length} />
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
