import { AUDIT_ACTIONS, AUDIT_RESOURCES, type AuditAction, type AuditResource } from "@svc/core/browser";
import { useId, useState, type SyntheticEvent } from "react";
import { useClusters } from "../clusters/queries.ts";
import { useUsers } from "../users/queries.ts";
import { isoToLocalInput, localInputToIso, timeRangeProblem, type AuditFilter } from "./audit-view.ts";

interface Draft {
  resource: string;
  action: string;
  cluster: string;
  actor: string;
  since: string;
  until: string;
}

function draftOf(filter: AuditFilter): Draft {
  return {
    resource: filter.resource ?? "",
    action: filter.action ?? "",
    cluster: filter.cluster ?? "",
    actor: filter.actor ?? "",
    since: isoToLocalInput(filter.since),
    until: isoToLocalInput(filter.until),
  };
}

function filterOf(draft: Draft): AuditFilter {
  const filter: AuditFilter = {};
  if (draft.resource !== "") filter.resource = draft.resource as AuditResource;
  if (draft.action !== "") filter.action = draft.action as AuditAction;
  if (draft.cluster.trim() !== "") filter.cluster = draft.cluster.trim();
  if (draft.actor.trim() !== "") filter.actor = draft.actor.trim();
  const since = localInputToIso(draft.since);
  if (since !== undefined) filter.since = since;
  const until = localInputToIso(draft.until);
  if (until !== undefined) filter.until = until;
  return filter;
}

/** A filter typed (or picked from suggestions) and applied with the form. */
function TypedFilter({
  label,
  value,
  onChange,
  type = "text",
  placeholder,
  suggestions,
  problem,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  type?: "text" | "datetime-local";
  placeholder?: string;
  suggestions?: string[] | undefined;
  problem?: string | undefined;
}) {
  const listId = useId();
  const problemId = useId();
  return (
    <label className="field">
      <span>{label}</span>
      <input
        type={type}
        list={suggestions === undefined ? undefined : listId}
        value={value}
        placeholder={placeholder}
        aria-invalid={problem !== undefined}
        aria-describedby={problem === undefined ? undefined : problemId}
        onChange={(e) => {
          onChange(e.target.value);
        }}
      />
      {problem !== undefined && (
        <span className="field-problem" id={problemId}>
          {problem}
        </span>
      )}
      {suggestions !== undefined && (
        <datalist id={listId}>
          {suggestions.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
      )}
    </label>
  );
}

/**
 * The audit filters. A choice from a list applies at once; typed values (cluster, actor, times)
 * apply with Enter or "Apply", so the log is not queried for every keystroke. Mount it with a
 * key of the URL's filter so that going back in history resets what is typed.
 */
export function AuditFilters({
  filter,
  onApply,
}: {
  filter: AuditFilter;
  onApply: (filter: AuditFilter) => void;
}) {
  const [draft, setDraft] = useState(() => draftOf(filter));
  const clusters = useClusters();
  const users = useUsers();
  const set = (key: keyof Draft, value: string) => {
    setDraft((d) => ({ ...d, [key]: value }));
  };
  const rangeProblem = timeRangeProblem(filterOf(draft));
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    if (rangeProblem === undefined) onApply(filterOf(draft));
  };
  const chooseNow = (key: "resource" | "action", value: string) => {
    const next = { ...draft, [key]: value };
    setDraft(next);
    if (timeRangeProblem(filterOf(next)) === undefined) onApply(filterOf(next));
  };

  return (
    <form className="toolbar audit-filters" onSubmit={submit} aria-label="Audit filters">
      <label className="field">
        <span>Resource</span>
        <select
          value={draft.resource}
          onChange={(e) => {
            chooseNow("resource", e.target.value);
          }}
        >
          <option value="">Any resource</option>
          {AUDIT_RESOURCES.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>Action</span>
        <select
          value={draft.action}
          onChange={(e) => {
            chooseNow("action", e.target.value);
          }}
        >
          <option value="">Any action</option>
          {AUDIT_ACTIONS.map((a) => (
            <option key={a}>{a}</option>
          ))}
        </select>
      </label>
      <TypedFilter
        label="Cluster"
        value={draft.cluster}
        placeholder="Any cluster"
        suggestions={clusters.data?.map((c) => c.id)}
        onChange={(value) => {
          set("cluster", value);
        }}
      />
      <TypedFilter
        label="Actor"
        value={draft.actor}
        placeholder="Anyone"
        suggestions={users.data?.map((u) => u.username)}
        onChange={(value) => {
          set("actor", value);
        }}
      />
      <TypedFilter
        label="Since"
        type="datetime-local"
        value={draft.since}
        onChange={(value) => {
          set("since", value);
        }}
      />
      <TypedFilter
        label="Until"
        type="datetime-local"
        value={draft.until}
        problem={rangeProblem}
        onChange={(value) => {
          set("until", value);
        }}
      />
      <div className="audit-filter-actions">
        <button type="submit" className="primary" disabled={rangeProblem !== undefined}>
          Apply filters
        </button>
        <button
          type="button"
          onClick={() => {
            setDraft(draftOf({}));
            onApply({});
          }}
        >
          Clear filters
        </button>
      </div>
    </form>
  );
}
