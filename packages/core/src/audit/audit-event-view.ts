// An audit event as the REST API shows it (docs/api.md "Audit log"): the one definition the API
// validates its answers with and the dashboard reads (as a type).
import Type from "typebox";
import { AUDIT_ACTIONS, AUDIT_OUTCOMES, AUDIT_RESOURCES } from "./audit-vocabulary.ts";
import { ROLES } from "../users/access.ts";

/** DESIGN.md §4 Audit: one recorded event. */
export const AuditEventView = Type.Object({
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
export type AuditEventView = Type.Static<typeof AuditEventView>;
