// The clusters of `svc dev`: local control planes it starts (removed with everything in them
// when it stops), or, with SVC_DEV_KUBECONFIG=true, the cluster of your KUBECONFIG, where it
// removes on stop only what it created there.
import { homedir } from "node:os";
import { join } from "node:path";
import { ApiException, ApiextensionsV1Api, CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { allCrds, SYSTEM_NAMESPACE } from "@svc/core";
import { ensureNamespace, installCrds, waitFor } from "@svc/kube";
import {
  localImageArchives,
  onShutdownSignal,
  POD_NETWORK,
  startLocalControlPlane,
  startLocalNode,
} from "@svc/localkube";
import { DEMO_NAMESPACE } from "./demo.ts";

export interface DevCluster {
  kubeconfigPath: string;
  server: string;
  kubeConfig: KubeConfig;
  /** Where a local control plane writes its logs; undefined for your own cluster. */
  logsDir: string | undefined;
  /** The local node's log folder, when one runs pods for this cluster. */
  nodeLogsDir?: string;
}

/**
 * A local control plane (etcd, kube-apiserver, kube-controller-manager) in `parentDir`, with a
 * node that runs its pods (containerd, kubelet, kube-scheduler, kube-proxy) when `withNode`.
 */
export async function startLocalCluster(parentDir: string, { withNode = false } = {}): Promise<DevCluster> {
  const controlPlane = await startLocalControlPlane({
    parentDir,
    ...(withNode ? { podNetworkAddress: POD_NETWORK.gateway } : {}),
  });
  const node = withNode
    ? await startLocalNode(controlPlane, {
        parentDir,
        imageArchives: localImageArchives(),
        // A changed ConfigMap reaches the demo's mounted file within seconds.
        syncFrequencySeconds: 10,
      })
    : undefined;
  // On Ctrl-C the node stops first (a shutdown step: its pods go through the API while it runs).
  return {
    kubeconfigPath: controlPlane.kubeconfigPath,
    server: controlPlane.server,
    kubeConfig: controlPlane.kubeConfig(),
    logsDir: controlPlane.dir,
    ...(node === undefined ? {} : { nodeLogsDir: node.dir }),
  };
}

/** The cluster of KUBECONFIG (its first file) or ~/.kube/config, at its current context. */
export function kubeconfigCluster(env: Readonly<Record<string, string | undefined>>): DevCluster {
  const kubeconfigPath = env["KUBECONFIG"]?.split(":")[0] || join(homedir(), ".kube", "config");
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  const server = kubeConfig.getCurrentCluster()?.server;
  if (server === undefined)
    throw new Error(`${kubeconfigPath} has no current context with a cluster (kubectl config use-context)`);
  return { kubeconfigPath, server, kubeConfig, logsDir: undefined };
}

async function namespaceExists(kc: KubeConfig, name: string): Promise<boolean> {
  try {
    await kc.makeApiClient(CoreV1Api).readNamespace({ name });
    return true;
  } catch (error) {
    if (error instanceof ApiException && error.code === 404) return false;
    throw error;
  }
}

/** Names of svc's CRDs the cluster has. */
async function crdsPresent(kc: KubeConfig): Promise<string[]> {
  const extensions = kc.makeApiClient(ApiextensionsV1Api);
  const names = new Set(allCrds().map((crd) => crd.metadata.name));
  const listed = await extensions.listCustomResourceDefinition();
  return listed.items.flatMap((crd) =>
    names.has(crd.metadata?.name ?? "") ? [crd.metadata?.name ?? ""] : [],
  );
}

/**
 * Installs the CRDs and creates svc-system in the hub. In your own cluster, what was not there
 * before is removed again when `svc dev` stops, while the operator still runs, so that it
 * removes its deliveries (its finalizers) before the flags go: the demo namespace, then
 * svc-system, then the CRDs.
 */
export async function prepareHub(hub: DevCluster): Promise<void> {
  const kc = hub.kubeConfig;
  if (hub.logsDir !== undefined) {
    await installCrds(kc);
    await ensureNamespace(kc, SYSTEM_NAMESPACE);
    return;
  }
  const created = {
    demo: !(await namespaceExists(kc, DEMO_NAMESPACE)),
    system: !(await namespaceExists(kc, SYSTEM_NAMESPACE)),
    crds: (await crdsPresent(kc)).length === 0,
  };
  await installCrds(kc);
  await ensureNamespace(kc, SYSTEM_NAMESPACE);
  onShutdownSignal(async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const removeNamespace = async (name: string) => {
      await core.deleteNamespace({ name }).catch(() => undefined);
      await waitFor(
        () => namespaceExists(kc, name),
        (exists) => !exists,
        { what: `namespace ${name} removed`, timeoutMs: 45_000, intervalMs: 250 },
      );
    };
    process.stdout.write("svc dev: removing what it created in your cluster...\n");
    if (created.demo) await removeNamespace(DEMO_NAMESPACE);
    if (created.system) await removeNamespace(SYSTEM_NAMESPACE);
    if (created.crds) {
      const extensions = kc.makeApiClient(ApiextensionsV1Api);
      for (const crd of allCrds())
        await extensions.deleteCustomResourceDefinition({ name: crd.metadata.name }).catch(() => undefined);
      await waitFor(
        () => crdsPresent(kc),
        (present) => present.length === 0,
        { what: "svc's CRDs removed", timeoutMs: 30_000, intervalMs: 250 },
      );
    }
  });
}
