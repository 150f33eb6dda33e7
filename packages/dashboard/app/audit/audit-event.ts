/** How an audit event (core's AuditEventView, as GET /api/v1/audit returns it) reads. */
import type { AuditEventView, AuditOutcome } from "@svc/core/browser";

export const OUTCOME_BADGE: Record<AuditOutcome, "ok" | "warn" | "bad"> = {
  success: "ok",
  denied: "warn",
  failure: "bad",
};

export interface ChangedField {
  field: string;
  /** Undefined when the field did not exist before (a creation) or after (a deletion). */
  before: string | undefined;
  after: string | undefined;
}

/** A recorded fact beside the changed fields, such as `passwordChanged: true`. */
export interface DetailNote {
  field: string;
  value: string;
}

export type DetailsView =
  | { kind: "changes"; fields: ChangedField[]; notes: DetailNote[] }
  | { kind: "refusal"; status: string; error: string }
  | { kind: "other"; json: string }
  | { kind: "none" };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function shown(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * An event's `details` for reading: the before/after of each changed field (with any other
 * recorded fact as a note), or the status and error of a refused request; anything else as
 * JSON, so nothing recorded is hidden.
 */
export function describeDetails(details: Record<string, unknown>): DetailsView {
  const keys = Object.keys(details);
  if (keys.length === 0) return { kind: "none" };
  const { before, after, ...rest } = details;
  if (isRecord(before) || isRecord(after)) {
    const was = isRecord(before) ? before : {};
    const is = isRecord(after) ? after : {};
    const fields = [...new Set([...Object.keys(was), ...Object.keys(is)])].sort();
    return {
      kind: "changes",
      fields: fields.map((field) => ({ field, before: shown(was[field]), after: shown(is[field]) })),
      notes: Object.entries(rest).map(([field, value]) => ({ field, value: shown(value) ?? "" })),
    };
  }
  const onlyRefusal = keys.every((k) => k === "status" || k === "error");
  const status = shown(details["status"]);
  if (onlyRefusal && status !== undefined) {
    return { kind: "refusal", status, error: shown(details["error"]) ?? "" };
  }
  return { kind: "other", json: JSON.stringify(details, null, 2) };
}

/** What the event acted on, for one table cell: "flag team-a/checkout" or "session". */
export function eventTarget(event: Pick<AuditEventView, "resource" | "resourceName" | "namespace">): string {
  if (event.resourceName === "") return event.resource;
  const name = event.namespace === "" ? event.resourceName : `${event.namespace}/${event.resourceName}`;
  return `${event.resource} ${name}`;
}
