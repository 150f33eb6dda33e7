import { useEffect, useRef, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { NamespaceSelect } from "../clusters/NamespaceSelect.tsx";
import { useClusters } from "../clusters/queries.ts";
import { useAccess } from "../session/session.tsx";
import { PageHeader } from "../ui/PageHeader.tsx";
import { EmptyState, Loading, QueryState } from "../ui/states.tsx";
import { FlagTable } from "./FlagTable.tsx";
import { countLabel, paramsFromView, viewFromParams, type ListView, type SortKey } from "./list-model.ts";
import { useFlagList } from "./useFlagList.ts";

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

export function FlagListPage() {
  // New flag where any of the user's roles or grants may create one; the form narrows it.
  const mayCreate = useAccess().canSomewhere("POST /api/v1/flags");
  const [params, setParams] = useSearchParams();
  const view = viewFromParams(params);
  const list = useFlagList(view);
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
          mayCreate && (
            <Link to="/flags/new" className="button primary">
              New flag
            </Link>
          )
        }
      />
      <Filters view={view} update={update} />
      <QueryState query={list.query} what="flags">
        {(rows) =>
          rows.flags.length > 0 ? (
            <>
              <p className="hint" aria-live="polite">
                {countLabel(rows.matching, rows.total)}
              </p>
              <FlagTable
                flags={rows.flags}
                view={view}
                sortBy={rows.sortable ? sortBy : undefined}
                onNearEnd={list.loadMore}
              />
              {list.loadingMore && <Loading what="more flags" />}
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
                {mayCreate
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
