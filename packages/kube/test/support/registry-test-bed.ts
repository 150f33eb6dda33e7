// A hub (the shared control plane), a second control plane to register, and a registry over
// a system namespace of the calling test file's own (so that other files' ClusterConnections
// stay out of view).
import { readFile } from "node:fs/promises";
import type { KubeConfig } from "@kubernetes/client-node";
import { ClusterRegistry, installCrds, type ClusterRegistryEvent, type ConnectedCluster } from "@svc/kube";
import { startLocalControlPlane, type LocalControlPlane } from "@svc/kube/testing";
import { testNamespace } from "../../../../test/support/kube.ts";
import { clusterIn, createNamespace, registerCluster } from "./registry.ts";

export interface RegistryTestBed {
  remote: LocalControlPlane;
  remoteKc: KubeConfig;
  /** The remote's cluster-admin kubeconfig, as a user would paste it into a Secret. */
  remoteKubeconfig: string;
  systemNamespace: string;
  /** Started with localClusterId "hub". */
  registry: ClusterRegistry;
  /** Every event the registry emitted. */
  events: ClusterRegistryEvent[];
  /** Registers the remote (or `spec.apiServer`) as `id`, with `secret` as its credentials. */
  register(id: string, spec: Record<string, unknown>, secret?: Record<string, string>): Promise<void>;
  connected(id: string): Promise<ConnectedCluster>;
  remoteNamespace(name: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startRegistryTestBed(hub: KubeConfig, prefix: string): Promise<RegistryTestBed> {
  const [remote] = await Promise.all([startLocalControlPlane(), installCrds(hub)]);
  const remoteKc = remote.kubeConfig();
  const remoteKubeconfig = await readFile(remote.kubeconfigPath, "utf8");
  await installCrds(remoteKc);
  const systemNamespace = await testNamespace(hub, prefix);
  const registry = await ClusterRegistry.start({
    hubKubeConfig: hub,
    systemNamespace,
    localClusterId: "hub",
    requestTimeoutMs: 2000,
    probeIntervalMs: 500,
  });
  const events: ClusterRegistryEvent[] = [];
  registry.onChange((event) => events.push(event));
  return {
    remote,
    remoteKc,
    remoteKubeconfig,
    systemNamespace,
    registry,
    events,
    register: (id, spec, secret) =>
      registerCluster(hub, systemNamespace, id, { apiServer: remote.server, ...spec }, secret),
    connected: (id) => clusterIn(registry, id),
    remoteNamespace: (name) => createNamespace(remoteKc, name),
    async stop() {
      await registry.close();
      await remote.stop();
    },
  };
}
