import { clusterStatus, clusterView, localClusterConnection, type ClusterView } from "@svc/core";
import type { ConnectedCluster } from "@svc/kube";
import type { ApiContext } from "../context.ts";

/**
 * The REST view of a cluster: its ClusterConnection (the local one made up when none exists)
 * with the status the API's own live connection sees now, decided by core's clusterStatus.
 */
export function clusterViewOf(ctx: ApiContext, cluster: ConnectedCluster): ClusterView {
  const connection =
    cluster.connection ??
    localClusterConnection({
      id: cluster.id,
      apiServer: cluster.kubeConfig.getCurrentCluster()?.server ?? "",
      systemNamespace: ctx.config.systemNamespace,
    });
  const health = cluster.health();
  const workloads =
    cluster.deployments.list().length + cluster.statefulSets.list().length + cluster.daemonSets.list().length;
  const status = clusterStatus(
    {
      health,
      discoveredWorkloads: health.state === "ready" ? workloads : undefined,
      previous: connection.status,
    },
    new Date(ctx.now()),
  );
  return { ...clusterView({ ...connection, status }, ctx.config.clusterId), local: cluster.local };
}
