// What the signed-in user may do where (pure: unit-tested), from GET /api/v1/auth/me (global role
// and grants), the clusters' labels and the API's own access table, decided by the functions the
// API decides with (core's route-scope.ts: authorizePrincipal for the route, authorizeScopes for
// the cluster and namespace), so an action is offered exactly where it would be allowed.
import {
  authorizePrincipal,
  authorizeScopes,
  isRole,
  neededRole,
  ROUTE_RULES,
  type MeView,
  type Principal,
  type Scope,
} from "@svc/core/browser";

export function principalOf(me: MeView): Principal {
  return { username: me.username, role: isRole(me.role) ? me.role : undefined, grants: me.grants ?? [] };
}

/** Where an action applies: a flag's (or a plan's) cluster and namespace. */
export interface Where {
  clusterId: string;
  namespace?: string;
}

/** A cluster's ClusterConnection labels by id; undefined for a cluster not (yet) listed. */
export type LabelsOf = (clusterId: string) => Readonly<Record<string, string>> | undefined;

const scopeOf = (where: Where, labelsOf: LabelsOf): Scope => ({
  clusterId: where.clusterId,
  clusterLabels: labelsOf(where.clusterId) ?? {},
  ...(where.namespace === undefined ? {} : { namespace: where.namespace }),
});

/** Whether the user may call `route` somewhere (New flag, New rollout: the form then narrows it). */
export function maySomewhere(principal: Principal, route: string): boolean {
  return authorizePrincipal(ROUTE_RULES, route, principal).outcome === "allow";
}

/**
 * Whether the user may call `route` on every one of `wheres` (one flag's, or each cluster of a
 * plan's waves): the role it holds in each, its global role and every matching grant. A cluster
 * whose labels are not known yet matches only grants without labels.
 */
export function mayInEvery(
  principal: Principal,
  route: string,
  wheres: readonly Where[],
  labelsOf: LabelsOf,
): boolean {
  const rule = ROUTE_RULES[route];
  if (rule === undefined || !maySomewhere(principal, route)) return false;
  const scopes = wheres.map((where) => scopeOf(where, labelsOf));
  return authorizeScopes(principal, neededRole(rule), scopes).outcome === "allow";
}

/** Whether the user may call `route` on `where` (a flag's cluster and namespace). */
export function mayIn(principal: Principal, route: string, where: Where, labelsOf: LabelsOf): boolean {
  return mayInEvery(principal, route, [where], labelsOf);
}

/** Whether the global role alone allows it: users, cluster registration and webhooks. */
export function mayGlobally(principal: Principal, route: string): boolean {
  return maySomewhere({ ...principal, grants: [] }, route);
}
