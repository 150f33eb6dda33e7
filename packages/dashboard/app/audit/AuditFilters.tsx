import { AUDIT_ACTIONS, AUDIT_RESOURCES } from "@svc/core/browser";
import { useId } from "react";
import { useClusters } from "../clusters/queries.ts";
import { useUsers } from "../users/queries.ts";
import type { AuditFilter } from "./audit-view.ts";
import { useAuditDraft } from "./useAuditDraft.ts";

/** A filter chosen from a list, applied at once. */
function ChoiceFilter({
  label,
  value,
  anyLabel,
  choices,
  onChoose,
}: {
  label: string;
  value: string;
  anyLabel: string;
  choices: readonly string[];
  onChoose: (value: string) => void;
}) {
  return (
    <label className="field">
      <span>{label}</span>
      <select
        value={value}
        onChange={(e) => {
          onChoose(e.target.value);
        }}
      >
        <option value="">{anyLabel}</option>
        {choices.map((c) => (
          <option key={c}>{c}</option>
        ))}
      </select>
    </label>
  );
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
  const { draft, set, rangeProblem, submit, chooseNow, clear } = useAuditDraft(filter, onApply);
  const clusters = useClusters();
  const users = useUsers();

  return (
    <form className="toolbar audit-filters" onSubmit={submit} aria-label="Audit filters">
      <ChoiceFilter
        label="Resource"
        value={draft.resource}
        anyLabel="Any resource"
        choices={AUDIT_RESOURCES}
        onChoose={(value) => {
          chooseNow("resource", value);
        }}
      />
      <ChoiceFilter
        label="Action"
        value={draft.action}
        anyLabel="Any action"
        choices={AUDIT_ACTIONS}
        onChoose={(value) => {
          chooseNow("action", value);
        }}
      />
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
        <button type="button" onClick={clear}>
          Clear filters
        </button>
      </div>
    </form>
  );
}
