/**
 * The scoped half of the one access decision: access.ts says which role a route needs and how
 * its scope is found; this decides a principal (global role and grants) against it. Pure and
 * browser-safe, so the dashboard offers only what the API allows.
 */
import { ROLES, ruleFor, type AccessDecision, type Role, type RouteRule } from "./access.ts";
import {
  describePrincipal,
  grantMatchesCluster,
  highestRole,
  roleAtLeast,
  roleIn,
  scopeRefusal,
  type Principal,
  type Scope,
} from "./grants.ts";

/** The least role a route's row admits (its lists are upward-closed: admin ⊇ editor ⊇ viewer). */
export function neededRole(rule: RouteRule): Role {
  if (rule.access === "public") return "viewer";
  return [...ROLES].reverse().find((role) => (rule.access as readonly Role[]).includes(role)) ?? "admin";
}

/**
 * The route-level check, before any scope is known: a "global" route needs the global role;
 * any other route needs the role somewhere (a grant), its scope being checked next.
 */
export function authorizePrincipal(
  rules: Readonly<Record<string, RouteRule>>,
  key: string,
  principal: Principal | undefined,
): AccessDecision {
  const rule = ruleFor(rules, key);
  if (rule === undefined) return { outcome: "unknown-route", message: `no access rule for ${key}` };
  if (rule.access === "public") return { outcome: "allow" };
  if (principal === undefined) return { outcome: "unauthenticated" };
  if (rule.scope === "session") return { outcome: "allow" };
  const needed = neededRole(rule);
  const global = rule.scope === "global";
  const held = global ? principal.role : highestRole(principal);
  if (roleAtLeast(held, needed)) return { outcome: "allow" };
  return {
    outcome: "forbidden",
    message: `${principal.username} has ${describePrincipal(principal)}; ${key} needs ${needed}${global ? " as a global role" : ""}`,
  };
}

/** Allowed when the principal holds `needed` in every scope (a plan: every cluster of its waves). */
export function authorizeScopes(
  principal: Principal,
  needed: Role,
  scopes: readonly Scope[],
): AccessDecision {
  // No cluster to decide on (a plan whose waves match none): only a global role may.
  if (scopes.length === 0 && !roleAtLeast(principal.role, needed)) {
    return {
      outcome: "forbidden",
      message: `${principal.username} needs ${needed} as a global role: no cluster to decide on`,
    };
  }
  for (const scope of scopes) {
    const message = scopeRefusal(principal, scope, needed);
    if (message !== undefined) return { outcome: "forbidden", message };
  }
  return { outcome: "allow" };
}

/** May the principal read this object (or, without a namespace, anything in this cluster)? */
export function mayRead(principal: Principal, scope: Scope): boolean {
  return roleAtLeast(roleIn(principal, scope), "viewer");
}

export interface ClusterIdentity {
  id: string;
  labels: Readonly<Record<string, string>>;
}

/**
 * What of the audit log a principal reads: everything with a global role; otherwise the events
 * of each cluster it has a grant in (every namespace, or the grants' namespace patterns) and its
 * own sessions. Events without a cluster (users, webhooks, others' sessions) need a global role.
 */
export type AuditVisibility =
  | { all: true }
  | { all: false; username: string; clusters: { id: string; namespaces: readonly string[] | undefined }[] };

export function auditVisibility(principal: Principal, clusters: readonly ClusterIdentity[]): AuditVisibility {
  if (principal.role !== undefined) return { all: true };
  const visible = clusters.flatMap((cluster) => {
    const grants = principal.grants.filter((g) => grantMatchesCluster(g, cluster.id, cluster.labels));
    if (grants.length === 0) return [];
    const everyNamespace = grants.some((g) => g.namespaces === undefined);
    const namespaces = everyNamespace ? undefined : [...new Set(grants.flatMap((g) => g.namespaces ?? []))];
    return [{ id: cluster.id, namespaces }];
  });
  return { all: false, username: principal.username, clusters: visible };
}
