// The cluster registry against two real control planes: the shared one is the hub (and the
// local cluster), a second one started here is the registered remote cluster.
import { AppsV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FeatureFlagResource } from "@svc/kube";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import { connectionsApi, createFlag, flagResource, flagsApi, workload } from "./support/registry.ts";
import { startRegistryTestBed, type RegistryTestBed } from "./support/registry-test-bed.ts";

const hub = testKubeConfig();
let bed: RegistryTestBed;

beforeAll(async () => {
  bed = await startRegistryTestBed(hub, "registry-system");
});

afterAll(async () => {
  await bed.stop();
});

describe("the local cluster", () => {
  it("appears under localClusterId without any registration, first in the list, and reads the hub", async () => {
    const local = bed.registry.get("hub");
    expect(local?.local).toBe(true);
    expect(bed.registry.list()[0]?.id).toBe("hub");
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
    const namespace = await bed.remoteNamespace("shop");
    const apps = bed.remoteKc.makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({ namespace, body: workload("web") });
    await apps.createNamespacedStatefulSet({
      namespace,
      body: { ...workload("db"), spec: { ...workload("db").spec, serviceName: "db" } },
    });
    await apps.createNamespacedDaemonSet({ namespace, body: workload("agent") });
    await createFlag(bed.remoteKc, namespace, "new-checkout");
    await bed.register("east", {}, { kubeconfig: bed.remoteKubeconfig });

    const east = await bed.settled("east", "ready");
    expect(bed.events).toContainEqual({ type: "added", id: "east" });
    expect(east.local).toBe(false);
    expect(east.connection?.spec.displayName).toBe("east");
    expect(east.deployments.list(namespace).map((d) => d.metadata?.name)).toEqual(["web"]);
    expect(east.statefulSets.list(namespace).map((s) => s.metadata?.name)).toEqual(["db"]);
    expect(east.daemonSets.list().map((d) => d.metadata?.name)).toEqual(["agent"]);
    expect(east.flags.get(namespace, "new-checkout")?.spec.type).toBe("boolean");
    expect(east.namespaces.get("", namespace)).toBeDefined();
    // The remote's flag is not in the local cluster's cache, nor the other way round.
    expect(bed.registry.get("hub")?.flags.get(namespace, "new-checkout")).toBeUndefined();
    expect(bed.registry.list().map((c) => c.id)).toContain("east");
    expect(bed.registry.list()[0]?.id).toBe("hub");
  });

  it("shows a FeatureFlag applied directly, and forgets one deleted directly", async () => {
    const namespace = await bed.remoteNamespace("direct");
    await bed.register("direct", { namespaces: [namespace] }, { kubeconfig: bed.remoteKubeconfig });
    const cluster = await bed.settled("direct", "ready");
    await createFlag(bed.remoteKc, namespace, "applied");
    await eventually(
      () => Promise.resolve(cluster.flags.get(namespace, "applied")),
      (f) => f !== undefined,
      "the applied flag",
    );
    await bed.remoteKc
      .makeApiClient(CustomObjectsApi)
      .deleteNamespacedCustomObject({ ...flagsApi, namespace, name: "applied" });
    await eventually(
      () => Promise.resolve(cluster.flags.get(namespace, "applied")),
      (f) => f === undefined,
      "the flag gone",
    );
  });

  it("restricts its caches to spec.namespaces", async () => {
    const [inside, outside] = await Promise.all([
      bed.remoteNamespace("inside"),
      bed.remoteNamespace("outside"),
    ]);
    await Promise.all([
      createFlag(bed.remoteKc, inside, "seen"),
      createFlag(bed.remoteKc, outside, "unseen"),
    ]);
    await bed.register("restricted", { namespaces: [inside] }, { kubeconfig: bed.remoteKubeconfig });
    const cluster = await bed.settled("restricted", "ready");
    expect(cluster.scannedNamespaces).toEqual([inside]);
    expect(cluster.flags.list().map((f) => `${f.metadata.namespace}/${f.metadata.name}`)).toEqual([
      `${inside}/seen`,
    ]);
    expect(cluster.namespaces.list().map((n) => n.metadata?.name)).toEqual([inside]);
  });

  it("follows a change of spec.namespaces without a restart", async () => {
    const [first, second] = await Promise.all([bed.remoteNamespace("first"), bed.remoteNamespace("second")]);
    await Promise.all([createFlag(bed.remoteKc, first, "one"), createFlag(bed.remoteKc, second, "two")]);
    await bed.register("moving", { namespaces: [first] }, { kubeconfig: bed.remoteKubeconfig });
    const before = await bed.settled("moving", "ready");
    await hub.makeApiClient(CustomObjectsApi).patchNamespacedCustomObject({
      ...connectionsApi,
      namespace: bed.systemNamespace,
      name: "moving",
      body: [{ op: "replace", path: "/spec/namespaces", value: [first, second] }],
    });
    await eventually(
      () => Promise.resolve(bed.registry.get("moving")),
      (cluster) => cluster !== before,
      "the connection to follow its new namespaces",
    );
    expect(bed.events).toContainEqual({ type: "changed", id: "moving" });
    const after = await bed.settled("moving", "ready");
    expect(after.flags.list().map((f) => f.metadata.name)).toEqual(["one", "two"]);
  });

  it("shows the writer its own write at once, and an older version never replaces it", async () => {
    const namespace = await bed.remoteNamespace("writes");
    await bed.register("writes", { namespaces: [namespace] }, { kubeconfig: bed.remoteKubeconfig });
    const cluster = await bed.settled("writes", "ready");
    const seen: string[] = [];
    cluster.flags.onEvent((e) => {
      if (e.object.metadata.name === "mine")
        seen.push(`${e.type}:${e.object.metadata.resourceVersion ?? ""}`);
    });
    const mine = flagResource("mine");
    const created = await cluster.writer.create<FeatureFlagResource>({
      ...mine,
      metadata: { ...mine.metadata, namespace },
    });
    if (created === undefined) throw new Error("flag mine exists already");
    const updated = await cluster.writer.patch<FeatureFlagResource>(
      { ...mine, metadata: { name: "mine", namespace } },
      created.metadata.resourceVersion ?? "",
      [{ op: "replace", path: "/spec/enabled", value: false }],
    );
    cluster.flags.upsert(updated);
    expect(cluster.flags.get(namespace, "mine")?.spec.enabled).toBe(false);
    cluster.flags.upsert(created);
    expect(cluster.flags.get(namespace, "mine")?.metadata.resourceVersion).toBe(
      updated.metadata.resourceVersion,
    );
    // A flag written after both: once the watch delivers it, it has delivered the two writes too.
    await createFlag(bed.remoteKc, namespace, "marker");
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
