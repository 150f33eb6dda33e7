import { roleAtLeast, roleIn, type Actor, type EnvReader, type Principal } from "@svc/core";
import type { ConnectedCluster } from "@svc/kube";

/**
 * Whether the caller sees workloads' literal env values in `namespace` of `cluster` (issue 37
 * item 6): editors and admins in that scope do, viewers see the names only (values svc
 * delivered stay visible to all: core's workload-view.ts). The one place the workload routes
 * decide it. The cluster's labels are its ClusterConnection's, as http/scope.ts's clusterScope
 * reads them for every other scope check.
 */
export function envReader(
  actor: Actor | Principal | undefined,
  cluster: ConnectedCluster,
  namespace: string,
): EnvReader {
  if (actor === undefined) return { literalValues: false };
  // A global-role actor without grants is a principal whose grants are none.
  const principal: Principal = { grants: [], ...actor };
  const clusterLabels = cluster.connection?.metadata.labels ?? {};
  const role = roleIn(principal, { clusterId: cluster.id, clusterLabels, namespace });
  return { literalValues: roleAtLeast(role, "editor") };
}
