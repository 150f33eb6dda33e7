import { deliveryKind, type FlagView } from "@svc/core/browser";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useDeferredValue, useEffect, useMemo, useRef, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { NamespaceSelect } from "../clusters/NamespaceSelect.tsx";
import { useClusters } from "../clusters/queries.ts";
import { useCan } from "../session/session.tsx";
import { PageHeader } from "../ui/PageHeader.tsx";
import { EmptyState, QueryState } from "../ui/states.tsx";
import { relativeTime } from "../ui/time.ts";
import { FlagPhaseBadge } from "./FlagPhaseBadge.tsx";
import { DeleteFlagButton, FlagEnabledSwitch } from "./FlagRowActions.tsx";
import {
  flagHref,
  paramsFromView,
  valueSummary,
  viewFromParams,
  visibleFlags,
  type ListView,
  type SortKey,
} from "./list-model.ts";
import { useFlags } from "./queries.ts";
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
 * The search box holds what is typed in its own state. The router writes the URL in a React
 * transition, so an input controlled by the URL alone lags behind it while the list renders, and
 * React puts the older text back: keystrokes typed 40–80 ms apart were lost. The URL follows each
 * keystroke; a URL changed from elsewhere (back button, a link) replaces the text.
 */
function SearchInput({ value, onChange }: { value: string; onChange: (text: string) => void }) {
  const [text, setText] = useState(value);
  /** Texts this input wrote to the URL and may still see come back, oldest first. */
  const written = useRef(new Set([value]));
  useEffect(() => {
    if (!written.current.has(value)) setText(value);
    // Once the URL caught up with the newest text, older ones cannot come back.
    if (!written.current.has(value) || [...written.current].at(-1) === value)
      written.current = new Set([value]);
  }, [value]);
  return (
    <input
      type="search"
      value={text}
      placeholder="name or description"
      onChange={(event) => {
        const typed = event.target.value;
        setText(typed);
        written.current.delete(typed);
        written.current.add(typed);
        onChange(typed);
      }}
    />
  );
}

function Filters({ view, update }: { view: ListView; update: (patch: Partial<ListView>) => void }) {
  const clusters = useClusters();
  return (
    <div className="toolbar" role="search">
      <label className="field">
        <span>Search flags</span>
        <SearchInput
          value={view.search}
          onChange={(search) => {
            update({ search });
          }}
        />
      </label>
      <label className="field">
        <span>Cluster</span>
        <select
          value={view.clusterId}
          onChange={(event) => {
            update({ clusterId: event.target.value, namespace: "" });
          }}
        >
          <option value="">All clusters</option>
          {clusters.data?.map((cluster) => (
            <option key={cluster.id} value={cluster.id}>
              {cluster.displayName} ({cluster.id})
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>Namespace</span>
        <NamespaceSelect
          clusterId={view.clusterId}
          value={view.namespace}
          emptyLabel="All namespaces"
          onChange={(namespace) => {
            update({ namespace });
          }}
        />
      </label>
    </div>
  );
}

function FlagRow({ flag }: { flag: FlagView }) {
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
}

/** Only the rows in view are in the page, so thousands of flags scroll and filter smoothly. */
function FlagTable({
  flags,
  view,
  sortBy,
}: {
  flags: FlagView[];
  view: ListView;
  sortBy: (key: SortKey) => void;
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
  return (
    <div className="table-wrap flag-table" ref={scroller}>
      <table aria-rowcount={flags.length + 1}>
        <thead>
          <tr>
            {COLUMNS.map((column) => {
              const sorted = column.key !== undefined && column.key === view.sort;
              return (
                <th
                  key={column.label}
                  scope="col"
                  aria-sort={sorted ? (view.direction === "asc" ? "ascending" : "descending") : undefined}
                >
                  {column.key === undefined ? (
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

export function FlagListPage() {
  const can = useCan();
  const [params, setParams] = useSearchParams();
  const view = viewFromParams(params);
  const flags = useFlags({
    ...(view.clusterId === "" ? {} : { clusterId: view.clusterId }),
    ...(view.namespace === "" ? {} : { namespace: view.namespace }),
  });
  // Typing stays responsive: the input updates at once, the table when React has time.
  const search = useDeferredValue(view.search);
  const shown = useMemo(
    () => visibleFlags(flags.data ?? [], { search, sort: view.sort, direction: view.direction }),
    [flags.data, search, view.sort, view.direction],
  );
  const update = (patch: Partial<ListView>) => {
    setParams(paramsFromView({ ...view, ...patch }), { replace: true });
  };
  const sortBy = (key: SortKey) => {
    update({ sort: key, direction: view.sort === key && view.direction === "asc" ? "desc" : "asc" });
  };
  const filtered = view.search !== "" || view.clusterId !== "" || view.namespace !== "";

  return (
    <>
      <PageHeader
        title="Flags"
        actions={
          can("POST /api/v1/flags") && (
            <Link to="/flags/new" className="button primary">
              New flag
            </Link>
          )
        }
      />
      <Filters view={view} update={update} />
      <QueryState query={flags} what="flags">
        {(all) =>
          shown.length > 0 ? (
            <>
              <p className="hint" aria-live="polite">
                {shown.length === all.length
                  ? `${all.length} flags`
                  : `${shown.length} of ${all.length} flags`}
              </p>
              <FlagTable flags={shown} view={view} sortBy={sortBy} />
            </>
          ) : filtered ? (
            <EmptyState title="No flag matches these filters">
              <button
                type="button"
                onClick={() => {
                  setParams(new URLSearchParams(), { replace: true });
                }}
              >
                Clear filters
              </button>
            </EmptyState>
          ) : (
            <EmptyState title="No flags yet">
              <p>
                A flag delivers one value to the workloads its label selector matches.{" "}
                {can("POST /api/v1/flags")
                  ? "Create one with New flag, or apply a FeatureFlag resource with kubectl."
                  : "An editor or admin can create one, or apply a FeatureFlag resource with kubectl."}
              </p>
            </EmptyState>
          )
        }
      </QueryState>
    </>
  );
}
