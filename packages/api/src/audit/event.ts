import type { AuditEventView, AuditOutcome } from "@svc/core";

/** An event to record: the view (core's AuditEventView) before the log numbers it. */
export type NewAuditEvent = Omit<AuditEventView, "id">;

type Fields = Readonly<Record<string, unknown>>;

/**
 * The fields that differ between two versions of a resource, as {before, after}. Callers pass
 * only fields that may be shown: secrets are left out before they get here.
 */
export function changedFields(before: Fields, after: Fields): { before: Fields; after: Fields } {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const was: Record<string, unknown> = {};
  const is: Record<string, unknown> = {};
  for (const key of [...keys].sort()) {
    if (JSON.stringify(before[key]) === JSON.stringify(after[key])) continue;
    if (key in before) was[key] = before[key];
    if (key in after) is[key] = after[key];
  }
  return { before: was, after: is };
}

/** The outcome an HTTP status means for the audit log. */
export function outcomeOf(status: number): AuditOutcome {
  if (status < 400) return "success";
  if (status === 403 || status === 429) return "denied";
  return "failure";
}
