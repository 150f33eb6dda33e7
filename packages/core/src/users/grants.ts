/**
 * Scoped roles (issue 37 item 3): a user holds a global role (SPEC.md's default) and/or grants of
 * a role over clusters (ids or ClusterConnection labels) and namespaces (names or `*` patterns).
 * Pure and browser-safe: the API decides with it, the dashboard hides what the user may not do.
 * The TypeBox schema of a grant is in grant-schema.ts (TypeBox stays out of the browser bundle).
 */
import type { Role } from "./access.ts";

export interface Grant {
  role: Role;
  /** Cluster ids; omitted: every cluster. */
  clusters?: string[];
  /** Labels the cluster's ClusterConnection must all carry; omitted: no condition. */
  clusterLabels?: Record<string, string>;
  /** Namespace names or patterns with `*` ("shop-*"); omitted: every namespace. */
  namespaces?: string[];
}

export interface Principal {
  username: string;
  /** The global role; undefined when the user holds grants only (REST shows role "none"). */
  role: Role | undefined;
  grants: readonly Grant[];
}

export interface Scope {
  clusterId: string;
  clusterLabels: Readonly<Record<string, string>>;
  /** Undefined: "anything in this cluster" — a grant matches when it matches the cluster. */
  namespace?: string;
}

/** Bounds of a user's grants: enough for a team's map, small enough to check on every request. */
export const GRANTS_MAX = 50;
export const GRANT_CLUSTERS_MAX = 50;
export const GRANT_NAMESPACES_MAX = 50;
export const GRANT_LABELS_MAX = 16;
/** A DNS-1123 label where `*` may stand for any run of characters (at most 63 characters). */
export const NAMESPACE_PATTERN = "^[a-z0-9*]([-a-z0-9*]*[a-z0-9*])?$";
export const NAMESPACE_PATTERN_MAX = 63;

/** The REST value of `role` for a user who holds grants only. */
export const NO_GLOBAL_ROLE = "none";

const RANK: Readonly<Record<Role, number>> = { viewer: 1, editor: 2, admin: 3 };

/** admin > editor > viewer; no role is below every role. */
export function roleAtLeast(role: Role | undefined, needed: Role): boolean {
  return role !== undefined && RANK[role] >= RANK[needed];
}

export function higherRole(a: Role | undefined, b: Role | undefined): Role | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return RANK[a] >= RANK[b] ? a : b;
}

/** `*` matches any run of characters (also none); everything else matches itself. */
export function namespaceMatches(pattern: string, namespace: string): boolean {
  if (!pattern.includes("*")) return pattern === namespace;
  const parts = pattern.split("*");
  const first = parts[0] ?? "";
  const last = parts[parts.length - 1] ?? "";
  if (!namespace.startsWith(first) || namespace.length < first.length + last.length) return false;
  if (!namespace.endsWith(last)) return false;
  // Middle parts in order, greedily leftmost: linear, no backtracking (patterns are user input).
  let at = first.length;
  const end = namespace.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = namespace.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

export function grantMatchesCluster(
  grant: Grant,
  clusterId: string,
  clusterLabels: Readonly<Record<string, string>>,
): boolean {
  if (grant.clusters !== undefined && !grant.clusters.includes(clusterId)) return false;
  for (const [key, value] of Object.entries(grant.clusterLabels ?? {})) {
    if (clusterLabels[key] !== value) return false;
  }
  return true;
}

export function grantMatches(grant: Grant, scope: Scope): boolean {
  if (!grantMatchesCluster(grant, scope.clusterId, scope.clusterLabels)) return false;
  const { namespace } = scope;
  if (namespace === undefined || grant.namespaces === undefined) return true;
  return grant.namespaces.some((pattern) => namespaceMatches(pattern, namespace));
}

/** The highest of the global role and the role of every grant matching the scope. */
export function roleIn(principal: Principal, scope: Scope): Role | undefined {
  let role = principal.role;
  for (const grant of principal.grants) {
    if (grantMatches(grant, scope)) role = higherRole(role, grant.role);
  }
  return role;
}

/** The highest role the user holds anywhere: what a route's coarse role check compares with. */
export function highestRole(principal: Principal): Role | undefined {
  return principal.grants.reduce<Role | undefined>((role, g) => higherRole(role, g.role), principal.role);
}

/** One grant in a line, for 403s and the users list: "editor in cluster staging, namespace shop-*". */
export function describeGrant(grant: Grant): string {
  const clusters = grant.clusters === undefined ? "every cluster" : `cluster ${grant.clusters.join(", ")}`;
  const labels = Object.entries(grant.clusterLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  const where = labels.length === 0 ? clusters : `${clusters} labelled ${labels.join(", ")}`;
  const namespaces =
    grant.namespaces === undefined ? "every namespace" : `namespace ${grant.namespaces.join(", ")}`;
  return `${grant.role} in ${where}, ${namespaces}`;
}

export function describeScope(scope: Scope): string {
  const cluster = `cluster ${scope.clusterId}`;
  return scope.namespace === undefined ? cluster : `${cluster}, namespace ${scope.namespace}`;
}

/** What the user holds, for a 403: "role editor in cluster staging, namespace shop". */
export function describePrincipal(principal: Principal): string {
  const held = [
    ...(principal.role === undefined ? [] : [`${principal.role} everywhere`]),
    ...principal.grants.map(describeGrant),
  ];
  return held.length === 0 ? "no role" : `role ${held.join("; ")}`;
}

/** Undefined when the user holds `needed` in the scope; otherwise the 403 message naming both. */
export function scopeRefusal(principal: Principal, scope: Scope, needed: Role): string | undefined {
  if (roleAtLeast(roleIn(principal, scope), needed)) return undefined;
  return `${principal.username} has ${describePrincipal(principal)}; needed ${needed} in ${describeScope(scope)}`;
}

/**
 * What a user's grants must hold beyond their schema: each list that is given names something
 * (an empty list would match nothing — omit the field for "all"), without duplicates.
 */
export function grantsProblem(grants: readonly Grant[]): string | undefined {
  if (grants.length > GRANTS_MAX) return `grants: at most ${GRANTS_MAX} grants`;
  for (const [i, grant] of grants.entries()) {
    for (const field of ["clusters", "namespaces"] as const) {
      const list = grant[field];
      if (list === undefined) continue;
      if (list.length === 0) return `grants[${i}].${field}: must name at least one; omit it for all`;
      if (new Set(list).size !== list.length) return `grants[${i}].${field}: lists a value twice`;
    }
  }
  return undefined;
}

/** The REST role of a user: the global role, or "none" when only grants give them access. */
export function restRole(role: Role | undefined): Role | typeof NO_GLOBAL_ROLE {
  return role ?? NO_GLOBAL_ROLE;
}

/**
 * A user's access as REST answers it: SPEC.md's `{role}` alone for a user without grants (every
 * user created as SPEC.md shows), `grants` beside it only when the user holds some.
 */
export function accessView(
  role: Role | undefined,
  grants: readonly Grant[],
): { role: Role | typeof NO_GLOBAL_ROLE; grants?: Grant[] } {
  return { role: restRole(role), ...(grants.length === 0 ? {} : { grants: [...grants] }) };
}

/** A user's access as a whole: "none" needs a grant, or the account could do nothing at all. */
export function userAccessProblem(
  role: Role | typeof NO_GLOBAL_ROLE,
  grants: readonly Grant[],
): string | undefined {
  return role === NO_GLOBAL_ROLE && grants.length === 0
    ? 'role: "none" needs at least one grant (grants); give a global role or grants'
    : undefined;
}

/** The global role of a stored or REST role ("none": grants only). */
export function globalRole(role: Role | typeof NO_GLOBAL_ROLE): Role | undefined {
  return role === NO_GLOBAL_ROLE ? undefined : role;
}
