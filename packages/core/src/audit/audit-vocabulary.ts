/** Audit vocabulary (DESIGN.md §4 Audit): what kind of thing a request acts on, and how. */
export const AUDIT_RESOURCES = ["flag", "user", "cluster", "session", "webhook", "rollout"] as const;
export type AuditResource = (typeof AUDIT_RESOURCES)[number];
export const AUDIT_ACTIONS = [
  "create",
  "update",
  "delete",
  "toggle",
  "login",
  "login_failed",
  "logout",
  "test",
  // A FlagRollout plan's life (docs/api.md "Rollouts").
  "promote",
  "approve",
  "reject",
  "pause",
  "resume",
  "abort",
  "skip_bake",
  // A step the operator took on a plan (recorded from the plan's status; actor svc-operator).
  "step",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
/** How a request ended: denied is a 403 or a 429 (the API's outcomeOf), failure any other error. */
export const AUDIT_OUTCOMES = ["success", "denied", "failure"] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];
