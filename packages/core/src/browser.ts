/**
 * The part of the domain the web dashboard bundles: rules without Node built-ins or TypeBox at
 * run time, so the browser checks input and hides actions by the same rules the API enforces.
 * The API's representations are imported as types only (erased from the bundle).
 */
export * from "./basics.ts";
export * from "./names.ts";
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
} from "./access.ts";
export { AUDIT_RESOURCES, AUDIT_ACTIONS, type AuditResource, type AuditAction } from "./audit-vocabulary.ts";
export { PASSWORD_MIN_BYTES, PASSWORD_MAX_BYTES, passwordProblem, updatePermission } from "./user-rules.ts";
export type { FlagView, FlagCreateBody, FlagUpdateBody } from "./flag-view.ts";
export { flagResource } from "./flag-manifest.ts";
export type { ClusterView } from "./cluster-view.ts";
export type { ClusterRegistrationBody } from "./cluster-registration.ts";
export type { DiscoveredWorkload, WorkloadDetail } from "./workload-view.ts";
export type { PreviewEntry } from "./preview.ts";
export type {
  Approval,
  FlagRolloutSpec,
  FlagRolloutStatus,
  RolloutChange,
  RolloutCluster,
  RolloutWave,
  RolloutWorkload,
  Wave,
} from "./flag-rollout.ts";
export * from "./grants.ts";
export * from "./route-scope.ts";
export { protectedRefusal, OVERRIDE_REASON_HEADER } from "./protected-writes.ts";
