import type { Workload, WorkloadKind } from "@svc/core";
import type { ConnectedCluster } from "@svc/kube";

/** The workloads of a cluster's caches, of one namespace or all, as core's Workload values. */
export function workloadsOf(cluster: ConnectedCluster, namespace?: string): Workload[] {
  const of = (kind: WorkloadKind, objects: readonly Workload["object"][]): Workload[] =>
    objects.map((object) => ({ kind, object }));
  return [
    ...of("Deployment", cluster.deployments.list(namespace)),
    ...of("StatefulSet", cluster.statefulSets.list(namespace)),
    ...of("DaemonSet", cluster.daemonSets.list(namespace)),
  ];
}
