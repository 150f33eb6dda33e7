import { AUDIT_ACTIONS, AUDIT_RESOURCES, ROLES } from "@svc/core";
import Type from "typebox";

export const AUDIT_OUTCOMES = ["success", "denied", "failure"] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** DESIGN.md §4 Audit: one recorded event. */
export const AuditEvent = Type.Object({
  id: Type.Integer(),
  timestamp: Type.String({ format: "date-time" }),
  actor: Type.String({ description: "Username, or the attempted username of a failed login." }),
  actorRole: Type.String({ description: `${ROLES.join(", ")}, or empty when unknown.` }),
  action: Type.Enum([...AUDIT_ACTIONS]),
  resource: Type.Enum([...AUDIT_RESOURCES]),
  resourceName: Type.String(),
  namespace: Type.String(),
  cluster: Type.String(),
  outcome: Type.Enum([...AUDIT_OUTCOMES]),
  sourceIp: Type.String(),
  details: Type.Record(Type.String(), Type.Unknown(), {
    description: "before/after of the changed fields; for refusals, status and error. Never a password.",
  }),
});
export type AuditEvent = Type.Static<typeof AuditEvent>;

export type NewAuditEvent = Omit<AuditEvent, "id">;

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
