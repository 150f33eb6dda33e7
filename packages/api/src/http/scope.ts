import {
  authorizeScopes,
  mayRead,
  neededRole,
  ROUTE_RULES,
  ruleFor,
  type Principal,
  type Role,
  type Scope,
} from "@svc/core";
import type { FastifyRequest } from "fastify";
import type { ApiContext } from "../context.ts";
import { HttpError } from "./errors.ts";

/**
 * The shell of scoped roles (core's grants.ts and route-scope.ts decide): a scope's cluster
 * labels are its ClusterConnection's spec.labels (as wave selectors read them), from the registry.
 */

/** The auth hook ran before any handler of a non-public route: a missing actor is a wiring bug. */
export function principalOf(request: FastifyRequest): Principal {
  if (request.actor === undefined) throw new Error(`no authenticated actor on ${request.routeKey ?? "?"}`);
  return request.actor;
}

export function clusterLabels(ctx: ApiContext, clusterId: string): Readonly<Record<string, string>> {
  return ctx.clusters?.get(clusterId)?.connection?.spec.labels ?? {};
}

export function clusterScope(ctx: ApiContext, clusterId: string, namespace?: string): Scope {
  const labels = clusterLabels(ctx, clusterId);
  return namespace === undefined
    ? { clusterId, clusterLabels: labels }
    : { clusterId, clusterLabels: labels, namespace };
}

/** Records that the handler decided by the caller's scope (the auth hook refuses a 2xx without it). */
export function markScopeChecked(request: FastifyRequest): void {
  request.scopeChecked = true;
}

/** The route's role (its row's least role), or `needed`, in every scope; 403 naming both otherwise. */
export function requireScopes(
  ctx: ApiContext,
  request: FastifyRequest,
  scopes: readonly { clusterId: string; namespace?: string }[],
  needed?: Role,
): void {
  const rule = ruleFor(ROUTE_RULES, request.routeKey ?? "");
  if (rule === undefined) throw new Error(`no access rule for ${request.routeKey ?? "?"}`);
  const role = needed ?? neededRole(rule);
  const decision = authorizeScopes(
    principalOf(request),
    role,
    scopes.map((s) => clusterScope(ctx, s.clusterId, s.namespace)),
  );
  if (decision.outcome !== "allow") throw new HttpError(403, "message" in decision ? decision.message : "");
  markScopeChecked(request);
}

/** The filter of a global role: everything (a list compares with it to skip filtering). */
export const READ_ALL = (): boolean => true;

/** What the caller may read, for filtering a list (and marks the list as filtered). */
export function readFilter(
  ctx: ApiContext,
  request: FastifyRequest,
): (clusterId: string, namespace?: string) => boolean {
  const principal = principalOf(request);
  markScopeChecked(request);
  if (principal.role !== undefined) return READ_ALL;
  return (clusterId, namespace) => mayRead(principal, clusterScope(ctx, clusterId, namespace));
}
