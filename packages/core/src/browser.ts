/**
 * The part of the domain the web dashboard bundles: rules without Node built-ins or TypeBox at
 * run time, so the browser checks input and hides actions by the same rules the API enforces.
 * The API's representations are imported as types only (erased from the bundle).
 */
export * from "./flags/values.ts";
export * from "./http/linger.ts";
export * from "./http/refusals.ts";
export * from "./rollouts/phases.ts";
export * from "./vocabulary.ts";
export * from "./webhooks/events.ts";
export * from "./schema/names.ts";
export {
  ROLES,
  ROUTE_RULES,
  isRole,
  routeKey,
  authorizeRoute,
  ruleFor,
  type Role,
  type RouteRule,
  type ScopeRule,
} from "./users/access.ts";
export {
  AUDIT_RESOURCES,
  AUDIT_ACTIONS,
  AUDIT_OUTCOMES,
  type AuditResource,
  type AuditAction,
  type AuditOutcome,
} from "./audit/audit-vocabulary.ts";
export type { AuditEventView } from "./audit/audit-event-view.ts";
export {
  PASSWORD_MIN_BYTES,
  PASSWORD_MAX_BYTES,
  passwordProblem,
  updatePermission,
  type UserRole,
} from "./users/user-rules.ts";
export type { CreateUserBody, MeView, SessionView, UpdateUserBody, UserView } from "./users/user-view.ts";
export type {
  CreatedWebhook,
  WebhookBody,
  WebhookDeliveryPage,
  WebhookDeliveryView,
  WebhookTestResult,
  WebhookView,
} from "./webhooks/webhook-view.ts";
export type { FlagView, FlagCreateBody, FlagUpdateBody } from "./flags/flag-view.ts";
export type { FlagPreview } from "./flags/flag-preview.ts";
export { flagResource } from "./flags/flag-manifest.ts";
export type { ClusterView } from "./clusters/cluster-view.ts";
export type { ClusterRegistrationBody } from "./clusters/cluster-registration.ts";
export type { DiscoveredWorkload, WorkloadDetail } from "./delivery/workload-view.ts";
export type { PreviewEntry } from "./delivery/preview.ts";
export type {
  Approval,
  FlagRolloutSpec,
  FlagRolloutStatus,
  RolloutChange,
  RolloutCluster,
  RolloutWave,
  RolloutWorkload,
  Wave,
} from "./rollouts/flag-rollout.ts";
export type { RolloutCreateBody, RolloutView } from "./rollouts/rollout-view.ts";
export * from "./users/grants.ts";
export * from "./users/route-scope.ts";
export { protectedRefusal, OVERRIDE_REASON_HEADER } from "./rollouts/protected-writes.ts";
// The API's schemas of the bodies the forms send, compiled ahead of time (plain functions).
export { schemaRefusals, unexplainedRefusals, type BodyCheck, type FieldCheck } from "./schema/body-check.ts";
export { FlagCreateBodyCheck } from "./flags/flag-body-checks.generated.ts";
export { CreateUserBodyCheck, UpdateUserBodyCheck } from "./users/user-body-checks.generated.ts";
export { WebhookBodyCheck } from "./webhooks/webhook-body-checks.generated.ts";
export { RolloutCreateBodyCheck } from "./rollouts/rollout-body-checks.generated.ts";
export { ClusterRegistrationBodyCheck } from "./clusters/cluster-body-checks.generated.ts";
