import type { AuditAction, AuditResource } from "../audit/audit-vocabulary.ts";

/**
 * Who may call what (SPEC.md "Roles"), as one declarative table of routes checked in one place
 * by `authorizeRoute`. Every route of the REST API has a row; a route without one is refused,
 * so a new endpoint cannot be public or open to every role by omission.
 */

export const ROLES = ["admin", "editor", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/**
 * How a route finds the cluster and namespace its role is needed in (scoped roles, grants.ts).
 * The auth hook decides the first group from the path and query; the handlers of the second
 * group call api/src/http/scope.ts (a 2xx answer without that check is refused, so a handler
 * cannot forget it):
 * - "none": public. "session": any signed-in user, about themselves or the API itself.
 * - "global": the global role (users, cluster writes, webhooks: never a grant).
 * - "flag": path namespace + `clusterId` query. "namespace-query": `clusterId` and `namespace`
 *   queries (import, export). "cluster": path cluster id, any namespace of it. "workload": path
 *   cluster id and namespace. "draft": no object at all (the role anywhere).
 * Handler-checked:
 * - "flag-body": the body's clusterId and namespace. "promote": the flag ("flag") and every
 *   cluster of the waves. "plan", "plan-body": every cluster of the plan's waves, the flag's
 *   namespace. "own-user": a global admin, or the user themselves (user-rules.ts).
 * - Lists filtered to what the user may read: "flags-list", "plans-list", "clusters-list",
 *   "cluster-filtered" (namespaces, workloads of a cluster the hook checked), "audit",
 *   "users-list".
 */
export const HOOK_SCOPES = [
  "none",
  "session",
  "global",
  "flag",
  "namespace-query",
  "cluster",
  "workload",
  "draft",
] as const;
export const HANDLER_SCOPES = [
  "flag-body",
  "promote",
  "plan",
  "plan-body",
  "own-user",
  "flags-list",
  "plans-list",
  "clusters-list",
  "cluster-filtered",
  "audit",
  "users-list",
] as const;
export type ScopeRule = (typeof HOOK_SCOPES)[number] | (typeof HANDLER_SCOPES)[number];

export function handlerChecksScope(scope: ScopeRule): boolean {
  return (HANDLER_SCOPES as readonly string[]).includes(scope);
}

export interface RouteRule {
  /** Where the route's role is needed (see ScopeRule). */
  scope: ScopeRule;
  /** "public": no token needed; otherwise the roles that may call the route. */
  access: "public" | readonly Role[];
  /** Set for the routes whose calls the audit log records (every mutating route). */
  audit?: { resource: AuditResource; action: AuditAction };
  /** A POST that changes nothing (an evaluation): not audited, as a GET is not. */
  readOnly?: true;
}

const ANY_ROLE: readonly Role[] = ROLES;
const WRITERS: readonly Role[] = ["admin", "editor"];
const ADMIN: readonly Role[] = ["admin"];

/**
 * Route key: "METHOD /path/{param}" (OpenAPI path template). PUT on a user is open to every role
 * here because a non-admin may change their own password; the finer rule lives with the users
 * route (own password only, never a role).
 */
export const ROUTE_RULES: Readonly<Record<string, RouteRule>> = {
  "GET /healthz": { scope: "none", access: "public" },
  "GET /readyz": { scope: "none", access: "public" },
  "GET /api/v1/openapi.json": { scope: "session", access: ANY_ROLE },

  "POST /api/v1/auth/login": {
    scope: "none",
    access: "public",
    audit: { resource: "session", action: "login" },
  },
  "POST /api/v1/auth/logout": {
    scope: "session",
    access: ANY_ROLE,
    audit: { resource: "session", action: "logout" },
  },
  "GET /api/v1/auth/me": { scope: "session", access: ANY_ROLE },
  "GET /api/v1/auth/methods": { scope: "none", access: "public" },
  "GET /api/v1/auth/sso/login": { scope: "none", access: "public" },
  // The one audited GET: the provider's redirect back is a sign-in (its handler records it).
  "GET /api/v1/auth/sso/callback": {
    scope: "none",
    access: "public",
    audit: { resource: "session", action: "login" },
  },
  // Hands over, once, a session the callback already opened and recorded.
  "POST /api/v1/auth/sso/session": { scope: "none", access: "public", readOnly: true },

  "GET /api/v1/users": { scope: "users-list", access: ANY_ROLE },
  "POST /api/v1/users": { scope: "global", access: ADMIN, audit: { resource: "user", action: "create" } },
  "PUT /api/v1/users/{username}": {
    scope: "own-user",
    access: ANY_ROLE,
    audit: { resource: "user", action: "update" },
  },
  "DELETE /api/v1/users/{username}": {
    scope: "global",
    access: ADMIN,
    audit: { resource: "user", action: "delete" },
  },

  "GET /api/v1/audit": { scope: "audit", access: ANY_ROLE },

  "GET /api/v1/flags": { scope: "flags-list", access: ANY_ROLE },
  "POST /api/v1/flags": {
    scope: "flag-body",
    access: WRITERS,
    audit: { resource: "flag", action: "create" },
  },
  "GET /api/v1/flags/{namespace}/{name}": { scope: "flag", access: ANY_ROLE },
  "PUT /api/v1/flags/{namespace}/{name}": {
    scope: "flag",
    access: WRITERS,
    audit: { resource: "flag", action: "update" },
  },
  "DELETE /api/v1/flags/{namespace}/{name}": {
    scope: "flag",
    access: ADMIN,
    audit: { resource: "flag", action: "delete" },
  },
  "POST /api/v1/flags/{namespace}/{name}/evaluate": { scope: "flag", access: ANY_ROLE, readOnly: true },
  "POST /api/v1/flags/evaluate": { scope: "draft", access: ANY_ROLE, readOnly: true },
  "POST /api/v1/flags/import": {
    scope: "namespace-query",
    access: WRITERS,
    audit: { resource: "flag", action: "create" },
  },
  "GET /api/v1/flags/export": { scope: "namespace-query", access: ANY_ROLE },
  "POST /api/v1/flags/{namespace}/{name}/toggle": {
    scope: "flag",
    access: WRITERS,
    audit: { resource: "flag", action: "toggle" },
  },

  // FlagRollout plans (docs/api.md "Rollouts"): a change applied wave by wave across clusters.
  "GET /api/v1/rollouts": { scope: "plans-list", access: ANY_ROLE },
  "POST /api/v1/rollouts": {
    scope: "plan-body",
    access: WRITERS,
    audit: { resource: "rollout", action: "create" },
  },
  "GET /api/v1/rollouts/{name}": { scope: "plan", access: ANY_ROLE },
  "DELETE /api/v1/rollouts/{name}": {
    scope: "plan",
    access: WRITERS,
    audit: { resource: "rollout", action: "delete" },
  },
  "POST /api/v1/rollouts/{name}/pause": {
    scope: "plan",
    access: WRITERS,
    audit: { resource: "rollout", action: "pause" },
  },
  "POST /api/v1/rollouts/{name}/resume": {
    scope: "plan",
    access: WRITERS,
    audit: { resource: "rollout", action: "resume" },
  },
  "POST /api/v1/rollouts/{name}/abort": {
    scope: "plan",
    access: WRITERS,
    audit: { resource: "rollout", action: "abort" },
  },
  "POST /api/v1/rollouts/{name}/skip-bake": {
    scope: "plan",
    access: WRITERS,
    audit: { resource: "rollout", action: "skip_bake" },
  },
  "POST /api/v1/rollouts/{name}/approve": {
    scope: "plan",
    access: WRITERS,
    audit: { resource: "rollout", action: "approve" },
  },
  "POST /api/v1/rollouts/{name}/reject": {
    scope: "plan",
    access: WRITERS,
    audit: { resource: "rollout", action: "reject" },
  },
  // A plan whose change is a flag's fields in one cluster (its source), for the waves given.
  "POST /api/v1/flags/{namespace}/{name}/promote": {
    scope: "promote",
    access: WRITERS,
    audit: { resource: "rollout", action: "promote" },
  },

  "GET /api/v1/clusters": { scope: "clusters-list", access: ANY_ROLE },
  "POST /api/v1/clusters": {
    scope: "global",
    access: ADMIN,
    audit: { resource: "cluster", action: "create" },
  },
  "GET /api/v1/clusters/{id}": { scope: "cluster", access: ANY_ROLE },
  "DELETE /api/v1/clusters/{id}": {
    scope: "global",
    access: ADMIN,
    audit: { resource: "cluster", action: "delete" },
  },
  "GET /api/v1/clusters/{id}/namespaces": { scope: "cluster-filtered", access: ANY_ROLE },
  "GET /api/v1/clusters/{id}/workloads": { scope: "cluster-filtered", access: ANY_ROLE },
  "GET /api/v1/clusters/{id}/workloads/{namespace}/{name}": { scope: "workload", access: ANY_ROLE },

  "GET /api/v1/webhooks": { scope: "global", access: ADMIN },
  "POST /api/v1/webhooks": {
    scope: "global",
    access: ADMIN,
    audit: { resource: "webhook", action: "create" },
  },
  "GET /api/v1/webhooks/{id}": { scope: "global", access: ADMIN },
  "PUT /api/v1/webhooks/{id}": {
    scope: "global",
    access: ADMIN,
    audit: { resource: "webhook", action: "update" },
  },
  "DELETE /api/v1/webhooks/{id}": {
    scope: "global",
    access: ADMIN,
    audit: { resource: "webhook", action: "delete" },
  },
  "POST /api/v1/webhooks/{id}/test": {
    scope: "global",
    access: ADMIN,
    audit: { resource: "webhook", action: "test" },
  },
  "GET /api/v1/webhooks/{id}/deliveries": { scope: "global", access: ADMIN },
};

/** The table key of a route: Fastify's ":param" segments become OpenAPI's "{param}". */
export function routeKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`;
}

/**
 * The row of a route key. HEAD is GET without a body (RFC 9110), so a HEAD route has its GET
 * route's row: same access, and never audited.
 */
export function ruleFor(rules: Readonly<Record<string, RouteRule>>, key: string): RouteRule | undefined {
  const rule = rules[key];
  if (rule !== undefined || !key.startsWith("HEAD ")) return rule;
  const get = rules[`GET ${key.slice("HEAD ".length)}`];
  return get === undefined ? undefined : { scope: get.scope, access: get.access };
}

export type AccessDecision =
  | { outcome: "allow" }
  | { outcome: "unauthenticated" }
  | { outcome: "forbidden"; message: string }
  | { outcome: "unknown-route"; message: string };

/**
 * The one authorization decision: `role` is the caller's role, or undefined when the request
 * carries no valid session. Authentication problems come before permission ones (401 before 403).
 */
export function authorizeRoute(
  rules: Readonly<Record<string, RouteRule>>,
  key: string,
  role: Role | undefined,
): AccessDecision {
  const rule = ruleFor(rules, key);
  if (rule === undefined) return { outcome: "unknown-route", message: `no access rule for ${key}` };
  if (rule.access === "public") return { outcome: "allow" };
  if (role === undefined) return { outcome: "unauthenticated" };
  if (rule.access.includes(role)) return { outcome: "allow" };
  return {
    outcome: "forbidden",
    message: `role ${role} may not call ${key}; allowed: ${rule.access.join(", ")}`,
  };
}
