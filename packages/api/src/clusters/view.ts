import {
  clusterStatus,
  clusterView,
  localClusterConnection,
  type ClusterProbe,
  type ClusterView,
} from "@svc/core";
import type { ConnectedCluster } from "@svc/kube";
import type { ApiContext } from "../context.ts";

/**
 * What the API's own connection to a cluster currently sees, as core's probe. The API keeps a
 * live connection to every cluster, so it shows that rather than a status written earlier.
 */
function probeOf(cluster: ConnectedCluster): ClusterProbe {
  const health = cluster.health();
  switch (health.state) {
    case "ready":
      return {
        result: "connected",
        kubernetesVersion: health.kubernetesVersion ?? "",
        discoveredWorkloads:
          cluster.deployments.list().length +
          cluster.statefulSets.list().length +
          cluster.daemonSets.list().length,
      };
    case "syncing":
      return {
        result: "unreachable",
        message: health.message ?? "connecting: the first read has not finished",
      };
    case "unreachable":
      return { result: "unreachable", message: health.message ?? "the API server does not answer" };
    case "error":
      return { result: "misconfigured", message: health.message ?? "the cluster refused the connection" };
  }
}

/** The REST view of a cluster: its ClusterConnection (the local one made up when none exists) and its live state. */
export function clusterViewOf(ctx: ApiContext, cluster: ConnectedCluster): ClusterView {
  const connection =
    cluster.connection ??
    localClusterConnection({
      id: cluster.id,
      apiServer: cluster.kubeConfig.getCurrentCluster()?.server ?? "",
      systemNamespace: ctx.config.systemNamespace,
    });
  const health = cluster.health();
  const seen = health.lastSyncTime === undefined ? new Date(ctx.now()) : new Date(health.lastSyncTime);
  const status = clusterStatus(probeOf(cluster), connection.status, seen);
  const view = clusterView({ ...connection, status }, ctx.config.clusterId);
  return { ...view, local: cluster.local };
}
