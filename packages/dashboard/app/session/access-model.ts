// What the signed-in user may do where (pure: unit-tested), from GET /api/v1/auth/me (global role
// and grants), the clusters' labels and the API's own access table: the same core rules the API
// decides with (roleIn, authorizeRoute), so an action is offered exactly where it would be allowed.
import {
  authorizeRoute,
  highestRole,
  isRole,
  roleIn,
  ROUTE_RULES,
  type Grant,
  type Principal,
  type Role,
} from "@svc/core/browser";

/** GET /api/v1/auth/me; `grants` absent from a server without scoped roles. */
export interface MeView {
  username: string;
  role: string;
  grants?: Grant[];
}

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

const allowed = (route: string, role: Role | undefined) =>
  authorizeRoute(ROUTE_RULES, route, role).outcome === "allow";

/**
 * Whether the user may call `route` on `where`: by the role they hold there (global role and every
 * matching grant). A cluster whose labels are not known yet matches only grants without labels.
 */
export function mayIn(principal: Principal, route: string, where: Where, labelsOf: LabelsOf): boolean {
  const scope = {
    clusterId: where.clusterId,
    clusterLabels: labelsOf(where.clusterId) ?? {},
    ...(where.namespace === undefined ? {} : { namespace: where.namespace }),
  };
  return allowed(route, roleIn(principal, scope));
}

/** Whether every one of `wheres` allows it (a plan needs the role in every cluster of its waves). */
export function mayInEvery(
  principal: Principal,
  route: string,
  wheres: readonly Where[],
  labelsOf: LabelsOf,
): boolean {
  return wheres.length > 0 && wheres.every((where) => mayIn(principal, route, where, labelsOf));
}

/** Whether the user may call `route` somewhere (New flag, New rollout: the form then narrows it). */
export function maySomewhere(principal: Principal, route: string): boolean {
  return allowed(route, highestRole(principal));
}

/** Whether the global role alone allows it: users, cluster registration and webhooks. */
export function mayGlobally(principal: Principal, route: string): boolean {
  return allowed(route, principal.role);
}
