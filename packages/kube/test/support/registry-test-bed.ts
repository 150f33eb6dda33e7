// A hub (the shared control plane), a second control plane to register, and a registry over
// a system namespace of the calling test file's own (so that other files' ClusterConnections
// stay out of view).
import { readFile } from "node:fs/promises";
import type { KubeConfig } from "@kubernetes/client-node";
import {
  ClusterRegistry,
  installCrds,
  type ClusterHealth,
  type ClusterRegistryEvent,
  type ConnectedCluster,
} from "@svc/kube";
import { startLocalControlPlane, type LocalControlPlane } from "@svc/localkube";
import { testNamespace } from "../../../../test/support/kube.ts";
import { createNamespace, registerCluster, settledIn } from "./registry.ts";

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
  /**
   * The registry's connection to `id` once its health is `state` with a message matching
   * `message`. Whichever connection the registry holds by then: a connection made before the
   * registry's watch delivered the Secret, or that saw a call time out on a loaded machine, is
   * replaced or recovers, as a user would see it.
   */
  settled(id: string, state: ClusterHealth["state"], message?: RegExp): Promise<ConnectedCluster>;
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
    settled: (id, state, message) => settledIn(registry, id, state, message),
    remoteNamespace: (name) => createNamespace(remoteKc, name),
    async stop() {
      await registry.close();
      await remote.stop();
    },
  };
}
