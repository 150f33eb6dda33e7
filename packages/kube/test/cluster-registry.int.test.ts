// The cluster registry against two real control planes: the shared one is the hub (and the
// local cluster), a second one started here is the registered remote cluster.
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ClusterRegistry,
  ClusterUnavailableError,
  installCrds,
  type ClusterRegistryEvent,
  type ConnectedCluster,
  type FeatureFlagResource,
} from "@svc/kube";
import { startLocalControlPlane, type LocalControlPlane } from "@svc/kube/testing";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import {
  apiServerWatches,
  clusterIn,
  connectionsApi,
  createFlag,
  createNamespace,
  flagResource,
  flagsApi,
  healthOf,
  registerCluster,
  workload,
} from "./support/registry.ts";

const hub = testKubeConfig();
let remote: LocalControlPlane;
let remoteKc: KubeConfig;
let remoteKubeconfig: string;
/** This file's stand-in for svc-system, so other test files' ClusterConnections stay out of view. */
let systemNamespace: string;
let registry: ClusterRegistry;
const events: ClusterRegistryEvent[] = [];

beforeAll(async () => {
  [remote] = await Promise.all([startLocalControlPlane(), installCrds(hub)]);
  remoteKc = remote.kubeConfig();
  remoteKubeconfig = await readFile(remote.kubeconfigPath, "utf8");
  await installCrds(remoteKc);
  systemNamespace = await testNamespace(hub, "registry-system");
  registry = await ClusterRegistry.start({
    hubKubeConfig: hub,
    systemNamespace,
    localClusterId: "hub",
    requestTimeoutMs: 2000,
    probeIntervalMs: 500,
  });
  registry.onChange((event) => events.push(event));
});

afterAll(async () => {
  await registry.close();
  await remote.stop();
});

function register(id: string, spec: Record<string, unknown>, secret?: Record<string, string>) {
  return registerCluster(hub, systemNamespace, id, { apiServer: remote.server, ...spec }, secret);
}

function connected(id: string): Promise<ConnectedCluster> {
  return clusterIn(registry, id);
}

function remoteNamespace(name: string): Promise<string> {
  return createNamespace(remoteKc, name);
}

describe("the local cluster", () => {
  it("appears under localClusterId without any registration, first in the list, and reads the hub", async () => {
    const local = registry.get("hub");
    expect(local?.local).toBe(true);
    expect(registry.list()[0]?.id).toBe("hub");
    expect(local?.connection).toBeUndefined();
    await local?.whenSynced(10_000);
    expect(local?.health().state).toBe("ready");
    expect(local?.health().kubernetesVersion).toMatch(/^v1\./);
    const namespace = await testNamespace(hub, "registry-local");
    await createFlag(hub, namespace, "on-the-hub");
    await eventually(
      () => Promise.resolve(local?.flags.get(namespace, "on-the-hub")),
      (found) => found !== undefined,
      "the hub's flag in the local cache",
    );
    expect(local?.namespaces.get("", namespace)?.metadata?.name).toBe(namespace);
    // System namespaces are not scanned.
    expect(local?.namespaces.list().map((n) => n.metadata?.name)).toContain("kube-system");
    expect(local?.deployments.list().filter((d) => d.metadata?.namespace === "kube-system")).toEqual([]);
  });
});

describe("a cluster registered with a kubeconfig Secret", () => {
  it("is picked up at run time and caches its workloads, flags and namespaces", async () => {
    const namespace = await remoteNamespace("shop");
    const apps = remoteKc.makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({ namespace, body: workload("web") });
    await apps.createNamespacedStatefulSet({
      namespace,
      body: { ...workload("db"), spec: { ...workload("db").spec, serviceName: "db" } },
    });
    await apps.createNamespacedDaemonSet({ namespace, body: workload("agent") });
    await createFlag(remoteKc, namespace, "new-checkout");
    await register("east", {}, { kubeconfig: remoteKubeconfig });

    const east = await connected("east");
    expect(events).toContainEqual({ type: "added", id: "east" });
    await east.whenSynced(30_000);
    expect(east.local).toBe(false);
    expect(east.connection?.spec.displayName).toBe("east");
    expect(east.deployments.list(namespace).map((d) => d.metadata?.name)).toEqual(["web"]);
    expect(east.statefulSets.get(namespace, "db")?.spec?.serviceName).toBe("db");
    expect(east.daemonSets.list().map((d) => d.metadata?.name)).toEqual(["agent"]);
    expect(east.flags.get(namespace, "new-checkout")?.spec.type).toBe("boolean");
    expect(east.namespaces.get("", namespace)).toBeDefined();
    // The remote's flag is not in the local cluster's cache, nor the other way round.
    expect(registry.get("hub")?.flags.get(namespace, "new-checkout")).toBeUndefined();
    expect(
      registry
        .list()
        .map((c) => c.id)
        .indexOf("east"),
    ).toBeGreaterThan(0);
  });

  it("shows a FeatureFlag applied directly, and forgets one deleted directly", async () => {
    const namespace = await remoteNamespace("direct");
    await register("direct", { namespaces: [namespace] }, { kubeconfig: remoteKubeconfig });
    const cluster = await connected("direct");
    await cluster.whenSynced(30_000);
    await createFlag(remoteKc, namespace, "applied");
    await eventually(
      () => Promise.resolve(cluster.flags.get(namespace, "applied")),
      (f) => f !== undefined,
      "the applied flag",
    );
    await remoteKc
      .makeApiClient(CustomObjectsApi)
      .deleteNamespacedCustomObject({ ...flagsApi, namespace, name: "applied" });
    await eventually(
      () => Promise.resolve(cluster.flags.get(namespace, "applied")),
      (f) => f === undefined,
      "the flag gone",
    );
  });

  it("restricts its caches to spec.namespaces", async () => {
    const [inside, outside] = await Promise.all([remoteNamespace("inside"), remoteNamespace("outside")]);
    await Promise.all([createFlag(remoteKc, inside, "seen"), createFlag(remoteKc, outside, "unseen")]);
    await register("restricted", { namespaces: [inside] }, { kubeconfig: remoteKubeconfig });
    const cluster = await connected("restricted");
    await cluster.whenSynced(30_000);
    expect(cluster.scannedNamespaces).toEqual([inside]);
    expect(cluster.flags.list().map((f) => `${f.metadata.namespace}/${f.metadata.name}`)).toEqual([
      `${inside}/seen`,
    ]);
    expect(cluster.namespaces.list().map((n) => n.metadata?.name)).toEqual([inside]);
  });

  it("shows the writer its own write at once, and an older version never replaces it", async () => {
    const namespace = await remoteNamespace("writes");
    await register("writes", { namespaces: [namespace] }, { kubeconfig: remoteKubeconfig });
    const cluster = await connected("writes");
    await cluster.whenSynced(30_000);
    const seen: string[] = [];
    cluster.flags.onEvent((e) => {
      if (e.object.metadata.name === "mine")
        seen.push(`${e.type}:${e.object.metadata.resourceVersion ?? ""}`);
    });
    const created = (await cluster.customObjects.createNamespacedCustomObject({
      ...flagsApi,
      namespace,
      body: flagResource("mine"),
    })) as FeatureFlagResource;
    const updated = (await cluster.customObjects.patchNamespacedCustomObject({
      ...flagsApi,
      namespace,
      name: "mine",
      body: [{ op: "replace", path: "/spec/enabled", value: false }],
    })) as FeatureFlagResource;
    cluster.flags.upsert(updated);
    expect(cluster.flags.get(namespace, "mine")?.spec.enabled).toBe(false);
    cluster.flags.upsert(created);
    expect(cluster.flags.get(namespace, "mine")?.metadata.resourceVersion).toBe(
      updated.metadata.resourceVersion,
    );
    // A flag written after both: once the watch delivers it, it has delivered the two writes too.
    await createFlag(remoteKc, namespace, "marker");
    await eventually(
      () => Promise.resolve(cluster.flags.get(namespace, "marker")),
      (f) => f !== undefined,
      "the marker flag",
    );
    expect(cluster.flags.get(namespace, "mine")?.metadata.resourceVersion).toBe(
      updated.metadata.resourceVersion,
    );
    const updatedAt = seen.indexOf(`upsert:${updated.metadata.resourceVersion ?? ""}`);
    expect(seen.slice(updatedAt + 1)).toEqual([]);
  });
});

describe("a registered cluster's life", () => {
  it("turns unreachable when its API server stops, while the local cluster still reads, and recovers alone", async () => {
    const namespace = await remoteNamespace("outage");
    await register("outage", { namespaces: [namespace] }, { kubeconfig: remoteKubeconfig });
    const cluster = await connected("outage");
    await cluster.whenSynced(30_000);
    await remote.stopApiServer();
    try {
      const down = await healthOf(cluster, "unreachable");
      expect(down.message).toMatch(/API server/);
      await expect(cluster.whenSynced(10_000)).rejects.toBeInstanceOf(ClusterUnavailableError);
      expect(events).toContainEqual({ type: "health", id: "outage" });
      const local = registry.get("hub");
      await local?.whenSynced(10_000);
      const hubNamespace = await testNamespace(hub, "registry-during-outage");
      await createFlag(hub, hubNamespace, "still-served");
      await eventually(
        () => Promise.resolve(local?.flags.get(hubNamespace, "still-served")),
        (f) => f !== undefined,
        "a hub flag while the remote is down",
      );
    } finally {
      await remote.startApiServer();
    }
    await healthOf(cluster, "ready");
    await cluster.whenSynced(10_000);
    await createFlag(remoteKc, namespace, "after-outage");
    await eventually(
      () => Promise.resolve(cluster.flags.get(namespace, "after-outage")),
      (f) => f !== undefined,
      "a flag made after the outage",
    );
  });

  it("bounds every call: an API server that accepts connections but never answers is unreachable, not a hang", async () => {
    const silent = createServer(() => undefined);
    silent.listen(0, "127.0.0.1");
    await once(silent, "listening");
    const { port } = silent.address() as AddressInfo;
    try {
      await register(
        "silent",
        { apiServer: `https://127.0.0.1:${port}`, authMethod: "serviceaccount" },
        { token: "t" },
      );
      const cluster = await connected("silent");
      expect((await healthOf(cluster, "unreachable")).message).toMatch(/did not answer/);
      const call = cluster.core.listNamespace().then(
        () => "answered",
        (error: unknown) => (error as Error).name,
      );
      expect(await call).toBe("TimeoutError");
    } finally {
      silent.close();
    }
  });

  it("stops its informers when its ClusterConnection is deleted", async () => {
    const namespace = await remoteNamespace("removed");
    await register("removed", { namespaces: [namespace] }, { kubeconfig: remoteKubeconfig });
    await register("witness", { namespaces: [namespace] }, { kubeconfig: remoteKubeconfig });
    const [cluster, witness] = await Promise.all([connected("removed"), connected("witness")]);
    await Promise.all([cluster.whenSynced(30_000), witness.whenSynced(30_000)]);
    const flagWatches = () => apiServerWatches(remoteKc, "featureflags");
    const watchesBefore = await flagWatches();
    await hub.makeApiClient(CustomObjectsApi).deleteNamespacedCustomObject({
      ...connectionsApi,
      namespace: systemNamespace,
      name: "removed",
    });
    await eventually(
      () => Promise.resolve(registry.get("removed")),
      (c) => c === undefined,
      "the cluster gone from the registry",
    );
    expect(events).toContainEqual({ type: "removed", id: "removed" });
    await eventually(flagWatches, (n) => n === watchesBefore - 1, "one watch of flags fewer on the remote");
    // A flag made now reaches the witness's cache, and no longer the removed cluster's.
    await createFlag(remoteKc, namespace, "after-removal");
    await eventually(
      () => Promise.resolve(witness.flags.get(namespace, "after-removal")),
      (f) => f !== undefined,
      "the witness seeing the flag",
    );
    expect(cluster.flags.get(namespace, "after-removal")).toBeUndefined();
  });

  it("reports rejected credentials as an error, and reconnects when the Secret is fixed", async () => {
    const wrongToken = remoteKubeconfig.replace(/token: "?[0-9a-f]{64}"?/, 'token: "0000"');
    expect(wrongToken).not.toBe(remoteKubeconfig);
    await register("bad-token", {}, { kubeconfig: wrongToken });
    const cluster = await connected("bad-token");
    const health = await healthOf(cluster, "error");
    expect(health.message).toMatch(/401/);
    expect(health.message).not.toContain("0000");
    await expect(cluster.whenSynced(5000)).rejects.toBeInstanceOf(ClusterUnavailableError);
    await hub.makeApiClient(CoreV1Api).replaceNamespacedSecret({
      namespace: systemNamespace,
      name: "svc-cluster-bad-token",
      body: { metadata: { name: "svc-cluster-bad-token" }, stringData: { kubeconfig: remoteKubeconfig } },
    });
    await eventually(
      () => Promise.resolve(registry.get("bad-token")),
      (c) => c !== cluster,
      "a new connection",
    );
    expect(events).toContainEqual({ type: "changed", id: "bad-token" });
    await registry.get("bad-token")?.whenSynced(30_000);
  });

  it("refuses a kubeconfig that runs an exec plugin, and a missing Secret, with a clear message", async () => {
    const exec = [
      "apiVersion: v1",
      "kind: Config",
      "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]",
      "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/false}}}]",
      "contexts: [{name: x, context: {cluster: c, user: u}}]",
      "current-context: x",
    ].join("\n");
    await register("exec", { authMethod: "kubeconfig" }, { kubeconfig: exec });
    expect((await healthOf(await connected("exec"), "error")).message).toMatch(/exec credential plugin/);
    await register("no-secret", {
      authMethod: "serviceaccount",
      credentialRef: { name: "absent", key: "token" },
    });
    expect((await healthOf(await connected("no-secret"), "error")).message).toMatch(
      /Secret absent not found/,
    );
  });
});
