import type { AuditAction, AuditResource } from "./audit-vocabulary.ts";

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

export interface RouteRule {
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
  "GET /healthz": { access: "public" },
  "GET /readyz": { access: "public" },
  "GET /api/v1/openapi.json": { access: ANY_ROLE },

  "POST /api/v1/auth/login": { access: "public", audit: { resource: "session", action: "login" } },
  "POST /api/v1/auth/logout": { access: ANY_ROLE, audit: { resource: "session", action: "logout" } },
  "GET /api/v1/auth/me": { access: ANY_ROLE },
  "GET /api/v1/auth/methods": { access: "public" },
  "GET /api/v1/auth/sso/login": { access: "public" },
  // The one audited GET: the provider's redirect back is a sign-in (its handler records it).
  "GET /api/v1/auth/sso/callback": { access: "public", audit: { resource: "session", action: "login" } },
  // Hands over, once, a session the callback already opened and recorded.
  "POST /api/v1/auth/sso/session": { access: "public", readOnly: true },

  "GET /api/v1/users": { access: ANY_ROLE },
  "POST /api/v1/users": { access: ADMIN, audit: { resource: "user", action: "create" } },
  "PUT /api/v1/users/{username}": { access: ANY_ROLE, audit: { resource: "user", action: "update" } },
  "DELETE /api/v1/users/{username}": { access: ADMIN, audit: { resource: "user", action: "delete" } },

  "GET /api/v1/audit": { access: ANY_ROLE },

  "GET /api/v1/flags": { access: ANY_ROLE },
  "POST /api/v1/flags": { access: WRITERS, audit: { resource: "flag", action: "create" } },
  "GET /api/v1/flags/{namespace}/{name}": { access: ANY_ROLE },
  "PUT /api/v1/flags/{namespace}/{name}": { access: WRITERS, audit: { resource: "flag", action: "update" } },
  "DELETE /api/v1/flags/{namespace}/{name}": { access: ADMIN, audit: { resource: "flag", action: "delete" } },
  "POST /api/v1/flags/{namespace}/{name}/evaluate": { access: ANY_ROLE, readOnly: true },
  "POST /api/v1/flags/evaluate": { access: ANY_ROLE, readOnly: true },
  "POST /api/v1/flags/import": { access: WRITERS, audit: { resource: "flag", action: "create" } },
  "GET /api/v1/flags/export": { access: ANY_ROLE },
  "POST /api/v1/flags/{namespace}/{name}/toggle": {
    access: WRITERS,
    audit: { resource: "flag", action: "toggle" },
  },

  // FlagRollout plans (docs/api.md "Rollouts"): a change applied wave by wave across clusters.
  "GET /api/v1/rollouts": { access: ANY_ROLE },
  "POST /api/v1/rollouts": { access: WRITERS, audit: { resource: "rollout", action: "create" } },
  "GET /api/v1/rollouts/{name}": { access: ANY_ROLE },
  "DELETE /api/v1/rollouts/{name}": { access: WRITERS, audit: { resource: "rollout", action: "delete" } },
  "POST /api/v1/rollouts/{name}/pause": { access: WRITERS, audit: { resource: "rollout", action: "pause" } },
  "POST /api/v1/rollouts/{name}/resume": {
    access: WRITERS,
    audit: { resource: "rollout", action: "resume" },
  },
  "POST /api/v1/rollouts/{name}/abort": { access: WRITERS, audit: { resource: "rollout", action: "abort" } },
  "POST /api/v1/rollouts/{name}/skip-bake": {
    access: WRITERS,
    audit: { resource: "rollout", action: "skip_bake" },
  },
  "POST /api/v1/rollouts/{name}/approve": {
    access: WRITERS,
    audit: { resource: "rollout", action: "approve" },
  },
  "POST /api/v1/rollouts/{name}/reject": {
    access: WRITERS,
    audit: { resource: "rollout", action: "reject" },
  },
  // A plan whose change is a flag's fields in one cluster (its source), for the waves given.
  "POST /api/v1/flags/{namespace}/{name}/promote": {
    access: WRITERS,
    audit: { resource: "rollout", action: "promote" },
  },

  "GET /api/v1/clusters": { access: ANY_ROLE },
  "POST /api/v1/clusters": { access: ADMIN, audit: { resource: "cluster", action: "create" } },
  "GET /api/v1/clusters/{id}": { access: ANY_ROLE },
  "DELETE /api/v1/clusters/{id}": { access: ADMIN, audit: { resource: "cluster", action: "delete" } },
  "GET /api/v1/clusters/{id}/namespaces": { access: ANY_ROLE },
  "GET /api/v1/clusters/{id}/workloads": { access: ANY_ROLE },
  "GET /api/v1/clusters/{id}/workloads/{namespace}/{name}": { access: ANY_ROLE },

  "GET /api/v1/webhooks": { access: ADMIN },
  "POST /api/v1/webhooks": { access: ADMIN, audit: { resource: "webhook", action: "create" } },
  "GET /api/v1/webhooks/{id}": { access: ADMIN },
  "PUT /api/v1/webhooks/{id}": { access: ADMIN, audit: { resource: "webhook", action: "update" } },
  "DELETE /api/v1/webhooks/{id}": { access: ADMIN, audit: { resource: "webhook", action: "delete" } },
  "POST /api/v1/webhooks/{id}/test": { access: ADMIN, audit: { resource: "webhook", action: "test" } },
  "GET /api/v1/webhooks/{id}/deliveries": { access: ADMIN },
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
  return get === undefined ? undefined : { access: get.access };
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
