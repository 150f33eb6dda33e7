// The namespace plan memo over real informer caches (ObjectStore): planned once per change of
// the namespace, not once per flag reconcile, and forgotten once the namespace is empty.
import type { V1DaemonSet, V1Deployment, V1Namespace, V1StatefulSet } from "@kubernetes/client-node";
import type { FeatureFlagResource } from "@svc/core";
import { describe, expect, it } from "vitest";
import { configMapFlag, envFlag, workload } from "../../core/test/support/workloads.ts";
import { ObjectStore } from "../../kube/src/registry/informer-cache.ts";
import { NamespacePlans } from "../src/namespace-plans.ts";

function cluster() {
  const fail = (error: unknown) => {
    throw error;
  };
  const caches = {
    id: "local",
    connection: undefined,
    flags: new ObjectStore<FeatureFlagResource>(fail),
    deployments: new ObjectStore<V1Deployment>(fail),
    statefulSets: new ObjectStore<V1StatefulSet>(fail),
    daemonSets: new ObjectStore<V1DaemonSet>(fail),
    namespaces: new ObjectStore<V1Namespace>(fail),
  };
  const lookups: string[] = [];
  const plans = new NamespacePlans(caches, (result) => lookups.push(result));
  return { caches, plans, lookups };
}

const deployment = (name: string, resourceVersion = "1"): V1Deployment => {
  const { object } = workload(name, { labels: { app: "web" } });
  return { ...object, metadata: { ...object.metadata, resourceVersion } } as V1Deployment;
};
const flag = (name: string, resourceVersion = "1", generation = 1): FeatureFlagResource => {
  const f = envFlag(name, { app: "web" });
  return { ...f, metadata: { ...f.metadata, resourceVersion, generation } };
};

describe("NamespacePlans", () => {
  it("plans a namespace of Deployments only once for every flag reconciled while nothing changes", () => {
    const { caches, plans, lookups } = cluster();
    caches.deployments.upsert(deployment("web"));
    caches.deployments.upsert(deployment("api"));
    caches.flags.upsert(flag("beta"));
    caches.flags.upsert(flag("dark"));
    const first = plans.plans("shop");
    // The second flag's status reads the same plans: no StatefulSet or DaemonSet in the namespace.
    expect(plans.plans("shop")).toBe(first);
    expect(first).toHaveLength(2);
    expect(lookups).toEqual(["miss", "hit"]);
  });

  it("plans again after a workload or a flag of the namespace changes", () => {
    const { caches, plans, lookups } = cluster();
    caches.deployments.upsert(deployment("web"));
    caches.flags.upsert(flag("beta"));
    plans.plans("shop");
    caches.deployments.upsert(deployment("web", "2"));
    plans.plans("shop");
    caches.flags.upsert(flag("beta", "2", 2));
    plans.plans("shop");
    plans.plans("shop");
    expect(lookups).toEqual(["miss", "miss", "miss", "hit"]);
  });

  it("plans again only the workloads whose object changed", () => {
    // A rollout's stream of Deployment status events re-planned the whole namespace (500
    // workloads per namespace in the fleet bench) for each flag reconcile.
    const { caches, plans } = cluster();
    for (const name of ["a", "b", "c"]) caches.deployments.upsert(deployment(name));
    caches.flags.upsert(flag("beta"));
    const first = plans.plans("shop");
    caches.deployments.upsert(deployment("b", "2"));
    const second = plans.plans("shop");
    expect(second).not.toBe(first);
    const byName = (list: typeof first, name: string) =>
      list.find((p) => p.workload.object.metadata?.name === name);
    expect(byName(second, "a")).toBe(byName(first, "a"));
    expect(byName(second, "c")).toBe(byName(first, "c"));
    expect(byName(second, "b")).not.toBe(byName(first, "b"));
    expect(byName(second, "b")?.workload.object.metadata?.resourceVersion).toBe("2");
  });

  it("keeps every plan through a flag's status write, and plans all again when its spec changes", () => {
    const { caches, plans, lookups } = cluster();
    for (const name of ["a", "b"]) caches.deployments.upsert(deployment(name));
    caches.flags.upsert(flag("beta"));
    const first = plans.plans("shop");
    const index = plans.flagIndex("shop");
    caches.flags.upsert({ ...flag("beta", "2"), status: { phase: "Delivered" } });
    expect(plans.plans("shop")).toBe(first);
    expect(plans.flagIndex("shop")).toBe(index);
    const changed = flag("beta", "3", 2);
    caches.flags.upsert({ ...changed, spec: { ...changed.spec, defaultValue: "off" } });
    const third = plans.plans("shop");
    expect(plans.flagIndex("shop")).not.toBe(index);
    expect(third[0]).not.toBe(first[0]);
    expect(third[1]).not.toBe(first[1]);
    expect(lookups).toEqual(["miss", "hit", "miss"]);
  });

  it("forgets a namespace once its last flag and workload are gone, and only then", () => {
    const { caches, plans } = cluster();
    caches.deployments.upsert(deployment("web"));
    caches.flags.upsert(flag("beta"));
    plans.plans("shop");
    caches.flags.remove("shop", "beta");
    plans.prune("shop");
    expect(plans.namespaces).toBe(1);
    caches.deployments.remove("shop", "web");
    plans.prune("shop");
    expect(plans.namespaces).toBe(0);
    // A reconcile still queued for the namespace (its sidecar RBAC) does not bring the memo back.
    expect(plans.plans("shop")).toEqual([]);
    expect(plans.namespaces).toBe(0);
  });

  it("plans again when the namespace's labels change or a ConfigMap turns out not to be svc's", () => {
    const { caches, plans } = cluster();
    caches.namespaces.upsert({ metadata: { name: "shop", resourceVersion: "1" } });
    caches.deployments.upsert(deployment("web"));
    caches.flags.upsert(flag("beta"));
    caches.flags.upsert(configMapFlag("theme", "ingress-nginx-controller", { app: "web" }));
    const outcomes = () =>
      plans.plans("shop").flatMap((p) => p.plan.flags.map((f) => `${f.flag}:${f.outcome}`));
    expect(outcomes()).toEqual(["beta:pending", "theme:pending"]);
    expect(plans.setConfigMapOwner("shop", "ingress-nginx-controller", "ingress-nginx")).toBe(true);
    expect(plans.setConfigMapOwner("shop", "ingress-nginx-controller", "ingress-nginx")).toBe(false);
    expect(outcomes()).toEqual(["beta:pending", "theme:invalid"]);
    expect(plans.plans("shop")[0]?.plan.volumes).toEqual([]);
    caches.namespaces.upsert({
      metadata: { name: "shop", resourceVersion: "2", labels: { "svc.io/flags": "disabled" } },
    });
    expect(outcomes()).toEqual([]);
  });
});
