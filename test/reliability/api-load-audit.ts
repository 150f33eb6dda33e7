// The audit side of the API load test: every acknowledged write has its success event, and no
// event lacks its write. A write and its event are matched by action, flag, actor and the value
// the write set (each write sets a value never set before: its client's next sequence number),
// counting repeats: a toggle back and forth is two events.
import type { AckedWrite } from "./api-load-clients.ts";

export interface FlagAuditEvent {
  id: number;
  action: string;
  resourceName: string;
  namespace: string;
  actor: string;
  outcome: string;
  details: { before?: Record<string, unknown>; after?: Record<string, unknown> };
}

const key = (action: string, name: string, actor: string, detail: unknown) =>
  `${action} ${name} by ${actor}: ${String(detail)}`;

/** What AckedWrite.detail holds, read from the event's before/after. */
function eventDetail(e: FlagAuditEvent): unknown {
  if (e.action === "toggle") return e.details.after?.["enabled"];
  if (e.action === "delete") return e.details.before?.["defaultValue"];
  return e.details.after?.["defaultValue"];
}

/** The keys of `want` missing from `have`, counting repeats (a multiset difference). */
function missing(want: readonly string[], have: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const k of have) counts.set(k, (counts.get(k) ?? 0) + 1);
  return want.filter((k) => {
    const n = counts.get(k) ?? 0;
    counts.set(k, n - 1);
    return n <= 0;
  });
}

export function auditGaps(acked: readonly AckedWrite[], events: readonly FlagAuditEvent[]) {
  const eventKeys = events
    .filter((e) => e.outcome === "success")
    .map((e) => key(e.action, e.resourceName, e.actor, eventDetail(e)));
  const ackedKeys = acked.map((w) => key(w.action, w.name, w.actor, w.detail));
  return {
    /** Acknowledged writes without their event. */
    unaudited: missing(ackedKeys, eventKeys),
    /** Success events of writes no client had acknowledged. */
    unacknowledged: missing(eventKeys, ackedKeys),
    /** Refusals and failures: there must be none, as no request failed. */
    refused: events.filter((e) => e.outcome !== "success").length,
  };
}
