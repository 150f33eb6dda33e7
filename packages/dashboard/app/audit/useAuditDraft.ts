import type { AuditAction, AuditResource } from "@svc/core/browser";
import { useState, type SyntheticEvent } from "react";
import { isoToLocalInput, localInputToIso, timeRangeProblem, type AuditFilter } from "./audit-view.ts";

/** The filters as typed, before they are applied. */
export interface AuditDraft {
  resource: string;
  action: string;
  cluster: string;
  actor: string;
  since: string;
  until: string;
}

function draftOf(filter: AuditFilter): AuditDraft {
  return {
    resource: filter.resource ?? "",
    action: filter.action ?? "",
    cluster: filter.cluster ?? "",
    actor: filter.actor ?? "",
    since: isoToLocalInput(filter.since),
    until: isoToLocalInput(filter.until),
  };
}

function filterOf(draft: AuditDraft): AuditFilter {
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

/**
 * The audit filters being edited, from `filter`: a typed value waits for `submit`, a choice
 * (resource, action) applies at once; neither applies while the time range is wrong.
 */
export function useAuditDraft(filter: AuditFilter, onApply: (filter: AuditFilter) => void) {
  const [draft, setDraft] = useState(() => draftOf(filter));
  const set = (key: keyof AuditDraft, value: string) => {
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
  const clear = () => {
    setDraft(draftOf({}));
    onApply({});
  };
  return { draft, set, rangeProblem, submit, chooseNow, clear };
}
