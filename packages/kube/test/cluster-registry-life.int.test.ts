// A registered cluster's outages, removal and credential errors, against two real control
// planes: the shared one is the hub, a second one started here is the registered cluster.
import { once } from "node:events";
import { createServer, type AddressInfo } from "node:net";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClusterUnavailableError } from "@svc/kube";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import { apiServerWatches, connectionsApi, createFlag, healthOf } from "./support/registry.ts";
import { startRegistryTestBed, type RegistryTestBed } from "./support/registry-test-bed.ts";

const hub = testKubeConfig();
let bed: RegistryTestBed;

beforeAll(async () => {
  bed = await startRegistryTestBed(hub, "registry-life");
});

afterAll(async () => {
  await bed.stop();
});

describe("a registered cluster's life", () => {
  it("turns unreachable when its API server stops, while the local cluster still reads, and recovers alone", async () => {
    const namespace = await bed.remoteNamespace("outage");
    await bed.register("outage", { namespaces: [namespace] }, { kubeconfig: bed.remoteKubeconfig });
    const cluster = await bed.settled("outage", "ready");
    await bed.remote.stopApiServer();
    try {
      const down = await healthOf(cluster, "unreachable");
      expect(down.message).toMatch(/API server/);
      await expect(cluster.whenSynced(10_000)).rejects.toBeInstanceOf(ClusterUnavailableError);
      expect(bed.events).toContainEqual({ type: "health", id: "outage" });
      const local = bed.registry.get("hub");
      await local?.whenSynced(10_000);
      const hubNamespace = await testNamespace(hub, "registry-during-outage");
      await createFlag(hub, hubNamespace, "still-served");
      await eventually(
        () => Promise.resolve(local?.flags.get(hubNamespace, "still-served")),
        (f) => f !== undefined,
        "a hub flag while the remote is down",
      );
    } finally {
      await bed.remote.startApiServer();
    }
    await healthOf(cluster, "ready");
    await cluster.whenSynced(10_000);
    await createFlag(bed.remoteKc, namespace, "after-outage");
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
      await bed.register(
        "silent",
        // No CA to verify a server that never answers: the system's are as good as any.
        { apiServer: `https://127.0.0.1:${port}`, authMethod: "serviceaccount", trustSystemCAs: true },
        { token: "t" },
      );
      const cluster = await bed.settled("silent", "unreachable", /did not answer/);
      const call = cluster.writer
        .read({ apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } })
        .then(
          () => "answered",
          (error: unknown) => (error as Error).name,
        );
      expect(await call).toBe("TimeoutError");
    } finally {
      silent.close();
    }
  });

  it("stops its informers when its ClusterConnection is deleted", async () => {
    const namespace = await bed.remoteNamespace("removed");
    await bed.register("removed", { namespaces: [namespace] }, { kubeconfig: bed.remoteKubeconfig });
    await bed.register("witness", { namespaces: [namespace] }, { kubeconfig: bed.remoteKubeconfig });
    const [cluster, witness] = await Promise.all([
      bed.settled("removed", "ready"),
      bed.settled("witness", "ready"),
    ]);
    const flagWatches = () => apiServerWatches(bed.remoteKc, "featureflags");
    const watchesBefore = await flagWatches();
    await hub.makeApiClient(CustomObjectsApi).deleteNamespacedCustomObject({
      ...connectionsApi,
      namespace: bed.systemNamespace,
      name: "removed",
    });
    await eventually(
      () => Promise.resolve(bed.registry.get("removed")),
      (c) => c === undefined,
      "the cluster gone from the registry",
    );
    expect(bed.events).toContainEqual({ type: "removed", id: "removed" });
    await eventually(flagWatches, (n) => n === watchesBefore - 1, "one watch of flags fewer on the remote");
    // A flag made now reaches the witness's cache, and no longer the removed cluster's.
    await createFlag(bed.remoteKc, namespace, "after-removal");
    await eventually(
      () => Promise.resolve(witness.flags.get(namespace, "after-removal")),
      (f) => f !== undefined,
      "the witness seeing the flag",
    );
    expect(cluster.flags.get(namespace, "after-removal")).toBeUndefined();
  });

  it("reports rejected credentials as an error, and reconnects when the Secret is fixed", async () => {
    const wrongToken = bed.remoteKubeconfig.replace(/token: "?[0-9a-f]{64}"?/, 'token: "0000"');
    expect(wrongToken).not.toBe(bed.remoteKubeconfig);
    await bed.register("bad-token", {}, { kubeconfig: wrongToken });
    const cluster = await bed.settled("bad-token", "error", /401/);
    expect(cluster.health().message).not.toContain("0000");
    await expect(cluster.whenSynced(5000)).rejects.toBeInstanceOf(ClusterUnavailableError);
    await hub.makeApiClient(CoreV1Api).replaceNamespacedSecret({
      namespace: bed.systemNamespace,
      name: "svc-cluster-bad-token",
      body: { metadata: { name: "svc-cluster-bad-token" }, stringData: { kubeconfig: bed.remoteKubeconfig } },
    });
    await eventually(
      () => Promise.resolve(bed.registry.get("bad-token")),
      (c) => c !== cluster,
      "a new connection",
    );
    expect(bed.events).toContainEqual({ type: "changed", id: "bad-token" });
    await bed.settled("bad-token", "ready");
  });

  it("connects once a Secret applied after its ClusterConnection arrives", async () => {
    const namespace = await bed.remoteNamespace("late-secret");
    const credentialRef = { name: "svc-cluster-late-secret", key: "kubeconfig" };
    await bed.register("late-secret", { authMethod: "kubeconfig", credentialRef, namespaces: [namespace] });
    await bed.settled("late-secret", "error", /Secret svc-cluster-late-secret \(key kubeconfig\) not found/);
    await hub.makeApiClient(CoreV1Api).createNamespacedSecret({
      namespace: bed.systemNamespace,
      body: { metadata: { name: credentialRef.name }, stringData: { kubeconfig: bed.remoteKubeconfig } },
    });
    const cluster = await bed.settled("late-secret", "ready");
    expect(cluster.scannedNamespaces).toEqual([namespace]);
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
    await bed.register("exec", { authMethod: "kubeconfig" }, { kubeconfig: exec });
    await bed.settled("exec", "error", /exec credential plugin/);
    await bed.register("no-secret", {
      authMethod: "serviceaccount",
      credentialRef: { name: "absent", key: "token" },
    });
    await bed.settled("no-secret", "error", /no credentials: Secret absent \(key token\) not found/);
  });
});
