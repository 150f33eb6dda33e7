// svc's side of the fleet benchmark: the clusters registered as a user registers them, and the
// operator's live heap read from a heap snapshot.
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, CLUSTER_CONNECTION, localClusterConnection } from "@svc/core";
import type { SimulatedCluster } from "./simulated-cluster.ts";

const ROOT = resolve(import.meta.dirname, "../..");

/**
 * The hub (the first cluster) as the local ClusterConnection, every other one with a
 * ClusterConnection and a kubeconfig Secret in the hub's svc-system (docs/clusters.md), each
 * scanned in `namespaces` only.
 */
export async function registerClusters(
  hub: KubeConfig,
  clusters: readonly SimulatedCluster[],
  ids: readonly string[],
  namespaces: readonly string[],
): Promise<void> {
  const objects = hub.makeApiClient(CustomObjectsApi);
  const core = hub.makeApiClient(CoreV1Api);
  const connections = {
    group: API_GROUP,
    version: "v1alpha1",
    namespace: "svc-system",
    plural: CLUSTER_CONNECTION.plural,
  };
  for (const [i, cluster] of clusters.entries()) {
    const id = ids[i] ?? "";
    if (i === 0) {
      const local = localClusterConnection({
        id,
        apiServer: cluster.controlPlane.server,
        systemNamespace: "svc-system",
      });
      await objects.createNamespacedCustomObject({
        ...connections,
        body: { ...local, spec: { ...local.spec, namespaces } },
      });
      continue;
    }
    const secret = `svc-cluster-${id}`;
    await core.createNamespacedSecret({
      namespace: "svc-system",
      body: {
        metadata: { name: secret },
        stringData: { kubeconfig: await readFile(cluster.controlPlane.kubeconfigPath, "utf8") },
      },
    });
    await objects.createNamespacedCustomObject({
      ...connections,
      body: {
        apiVersion: API_GROUP_VERSION,
        kind: CLUSTER_CONNECTION.kind,
        metadata: { name: id },
        spec: {
          displayName: id,
          apiServer: cluster.controlPlane.server,
          authMethod: "kubeconfig",
          credentialRef: { name: secret, key: "kubeconfig" },
          namespaces,
        },
      },
    });
  }
}

/** A heap snapshot's total self size in MB (bench/operator/heap-summary.ts): the heap a full GC keeps. */
export async function liveHeap(snapshot: string): Promise<number> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--max-old-space-size=8192", join(ROOT, "bench/operator/heap-summary.ts"), snapshot, "--top", "0"],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const mb = /total self size ([\d.]+) MB/.exec(stdout)?.[1];
  if (mb === undefined) throw new Error(`heap-summary printed no total: ${stdout}`);
  return Number(mb);
}
