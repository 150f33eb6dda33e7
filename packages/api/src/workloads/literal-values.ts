import { roleAtLeast, roleIn, type EnvReader } from "@svc/core";
import type { FastifyRequest } from "fastify";
import type { ApiContext } from "../context.ts";
import { clusterScope, principalOf } from "../http/scope.ts";

/**
 * Whether the caller sees workloads' literal env values in `namespace` of cluster `clusterId`
 * (issue 37 item 6): editors and admins in that scope do, by their global role or a grant;
 * viewers see the names only (values svc delivered stay visible to all: core's
 * workload-view.ts). The one place the workload routes decide it, on the same scope as every
 * other check (http/scope.ts).
 */
export function envReader(
  ctx: ApiContext,
  request: FastifyRequest,
  clusterId: string,
  namespace: string,
): EnvReader {
  const role = roleIn(principalOf(request), clusterScope(ctx, clusterId, namespace));
  return { literalValues: roleAtLeast(role, "editor") };
}
