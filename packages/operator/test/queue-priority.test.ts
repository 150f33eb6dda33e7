// What the controller queues for everything at once (start-up, a cluster ready again, a resync)
// goes at low priority; what a change queues goes at normal priority, ahead of it (the work
// queue's priorities: packages/kube/test/work-queue-priority.test.ts).
import { validOrThrow } from "@svc/core/schema/field-errors";
import type { V1DaemonSet, V1Deployment, V1Namespace, V1StatefulSet } from "@kubernetes/client-node";
import type { FeatureFlagResource } from "@svc/core";
import type { ConnectedCluster, ObjectWriter, QueuePriority } from "@svc/kube";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { envFlag, workload } from "../../core/test/support/workloads.ts";
import { ObjectStore } from "../../kube/src/registry/informer-cache.ts";
import { ClusterController } from "../src/cluster-controller.ts";
import { parseOperatorConfig } from "../src/config.ts";
import { createOperatorMetrics } from "../src/metrics.ts";

function clusterController() {
  const fail = (error: unknown) => {
    throw error;
  };
  const cluster = {
    id: "local",
    local: true,
    connection: undefined,
    flags: new ObjectStore<FeatureFlagResource>(fail),
    deployments: new ObjectStore<V1Deployment>(fail),
    statefulSets: new ObjectStore<V1StatefulSet>(fail),
    daemonSets: new ObjectStore<V1DaemonSet>(fail),
    namespaces: new ObjectStore<V1Namespace>(fail),
  };
  const queued: { key: string; priority: QueuePriority }[] = [];
  const controller = new ClusterController({
    // Only the caches are read: nothing here reconciles, so no client is needed.
    cluster: cluster as unknown as ConnectedCluster,
    writer: {} as ObjectWriter,
    enqueue: (key, _delayMs, priority) => queued.push({ key, priority }),
    sidecar: validOrThrow(parseOperatorConfig({})).sidecar,
    metrics: createOperatorMetrics(
      () => ({ depth: 0, delayed: 0 }),
      () => [],
      () => 0,
    ),
    logger: pino({ level: "silent" }),
    now: () => new Date(0),
  });
  return { cluster, controller, queued };
}

/** A flag the operator has delivered: its status reports its spec's generation. */
const flag = (name: string, resourceVersion = "1", generation = 1): FeatureFlagResource => {
  const f = envFlag(name, { app: "web" });
  return {
    ...f,
    metadata: { ...f.metadata, resourceVersion, generation },
    status: { observedGeneration: generation },
  };
};

describe("ClusterController queue priorities", () => {
  it("queues everything at low priority on enqueueAll, and a flag's change at normal priority", () => {
    const { cluster, controller, queued } = clusterController();
    const { object } = workload("web", { labels: { app: "web" } });
    cluster.deployments.upsert({
      ...object,
      metadata: { ...object.metadata, resourceVersion: "1" },
    } as V1Deployment);
    cluster.flags.upsert(flag("beta"));
    controller.start();
    controller.enqueueAll();
    expect(queued.length).toBeGreaterThan(2);
    expect(new Set(queued.map((q) => q.priority))).toEqual(new Set(["low"]));
    queued.length = 0;
    cluster.flags.upsert(flag("beta", "2", 2));
    expect(queued.map((q) => q.key)).toEqual(
      expect.arrayContaining(["local/shop/FeatureFlag/beta", "local/shop/Deployment/web"]),
    );
    expect(new Set(queued.map((q) => q.priority))).toEqual(new Set(["normal"]));
    controller.stop();
  });

  it("queues a flag's workloads again when its spec or annotations change, not for a status write", () => {
    // While the operator delivers a flag it writes the flag's status a few times a second: each
    // write queued every workload of the namespace again (2,000 per write in the fleet bench).
    const { cluster, controller, queued } = clusterController();
    const { object } = workload("web", { labels: { app: "web" } });
    cluster.deployments.upsert(object as V1Deployment);
    controller.start();
    cluster.flags.upsert(flag("beta", "1"));
    expect(queued.map((q) => q.key)).toContain("local/shop/Deployment/web");
    queued.length = 0;
    const delivered = flag("beta", "2");
    cluster.flags.upsert({ ...delivered, status: { ...delivered.status, phase: "Delivered" } });
    expect(queued.map((q) => q.key)).toEqual(["local/shop/FeatureFlag/beta"]);
    queued.length = 0;
    const canary = flag("beta", "3");
    cluster.flags.upsert({ ...canary, metadata: { ...canary.metadata, annotations: { "svc.dev/x": "1" } } });
    expect(queued.map((q) => q.key)).toContain("local/shop/Deployment/web");
    queued.length = 0;
    cluster.flags.upsert(flag("beta", "4", 2));
    expect(queued.map((q) => q.key)).toContain("local/shop/Deployment/web");
    controller.stop();
  });

  it("queues a flag whose status lags its spec, and what it reaches, at normal priority on enqueueAll", () => {
    // A replica taking a cluster over, or an operator started again, finds a change made while
    // nobody held the cluster: it goes ahead of the re-check of everything else.
    const { cluster, controller, queued } = clusterController();
    const { object } = workload("web", { labels: { app: "web" } });
    cluster.deployments.upsert(object as V1Deployment);
    const { object: api } = workload("api", { labels: { app: "api" } });
    cluster.deployments.upsert(api as V1Deployment);
    const withStatus = (f: FeatureFlagResource, generation: number, observed: number | undefined) => ({
      ...f,
      metadata: { ...f.metadata, generation },
      ...(observed === undefined ? {} : { status: { observedGeneration: observed } }),
    });
    cluster.flags.upsert(withStatus(envFlag("delivered", { app: "api" }), 3, 3));
    cluster.flags.upsert(withStatus(envFlag("changed", { app: "web" }), 4, 3));
    cluster.flags.upsert(withStatus(envFlag("new", { app: "web" }), 1, undefined));
    controller.enqueueAll();
    const priorities = new Map<string, QueuePriority[]>();
    for (const { key, priority } of queued) priorities.set(key, [...(priorities.get(key) ?? []), priority]);
    expect(priorities.get("local/shop/FeatureFlag/delivered")).toEqual(["low"]);
    expect(priorities.get("local/shop/FeatureFlag/changed")).toEqual(["normal"]);
    expect(priorities.get("local/shop/FeatureFlag/new")).toEqual(["normal"]);
    // Every workload of the namespace is planned again for a changed flag (the queue moves a key
    // already waiting at low priority up when it is added at normal).
    expect(priorities.get("local/shop/Deployment/web")).toContain("normal");
  });
});
