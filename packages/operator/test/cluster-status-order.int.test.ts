// Two status reports for one cluster: the older one, held in flight until the newer one is
// done, must not store the status it read first (the stored status is the newest one).
import { CustomObjectsApi } from "@kubernetes/client-node";
import { API_GROUP, CLUSTER_CONNECTION, type ClusterConnectionStatus } from "@svc/core";
import {
  ClusterRegistry,
  ObjectWriter,
  waitFor,
  type ApplyConfiguration,
  type ApplyOptions,
} from "@svc/kube";
import { afterAll, beforeAll, expect, it } from "vitest";
import { testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import { ClusterStatusReporter } from "../src/cluster-status.ts";
import { createOperatorMetrics } from "../src/metrics.ts";
import { createWorkloads, operatorScope, type OperatorScope } from "./support/operator.ts";

/** Holds the next apply until released; every other apply goes straight through. */
class HoldingWriter extends ObjectWriter {
  holdNext = false;
  release: (() => void) | undefined;
  readonly passed: Promise<unknown>[] = [];

  override async apply<T = unknown>(configuration: ApplyConfiguration, options: ApplyOptions): Promise<T> {
    if (!this.holdNext) {
      const applying = super.apply<T>(configuration, options);
      this.passed.push(applying);
      return applying;
    }
    this.holdNext = false;
    await new Promise<void>((resolve) => (this.release = resolve));
    return super.apply<T>(configuration, options);
  }
}

const hub = testKubeConfig();
let scope: OperatorScope;
let ns: string;
let registry: ClusterRegistry;
let writer: HoldingWriter;

beforeAll(async () => {
  ns = await testNamespace(hub, "op-status-order");
  scope = await operatorScope(hub, "op-status-order", [ns]);
  registry = await ClusterRegistry.start({
    hubKubeConfig: hub,
    systemNamespace: scope.systemNamespace,
    probeIntervalMs: 500,
  });
  writer = new HoldingWriter(hub, { timeoutMs: 10_000 });
});

afterAll(async () => {
  await registry.close();
  await writer.close();
});

it("stores the newest of a cluster's reports, even when an older one is still in flight", async () => {
  const local = await waitFor(
    () => registry.get("local"),
    (cluster) => cluster?.health().state === "ready",
    { what: "the local cluster ready", timeoutMs: 30_000, intervalMs: 50 },
  );
  const reporter = new ClusterStatusReporter({
    registry,
    hubWriter: writer,
    hubKubeConfig: hub,
    systemNamespace: scope.systemNamespace,
    localClusterId: "local",
    reportsFor: () => true,
    metrics: createOperatorMetrics(
      () => ({ depth: 0, delayed: 0 }),
      () => [],
      () => 0,
    ),
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    now: () => new Date(),
  });
  // The first report reads no workload and is held before its write.
  writer.holdNext = true;
  reporter.report("local");
  await waitFor(
    () => writer.release,
    (release) => release !== undefined,
    { what: "the first report's write held", timeoutMs: 10_000, intervalMs: 10 },
  );
  await createWorkloads(hub, ns, [{ kind: "Deployment", name: "web", labels: { app: "web" } }]);
  await waitFor(
    () => local?.deployments.list().length,
    (count) => count === 1,
    { what: "the Deployment in the cache", timeoutMs: 30_000, intervalMs: 20 },
  );
  // The second report sees the Deployment; whatever it already wrote lands before the first's write.
  reporter.report("local");
  await Promise.all(writer.passed);
  writer.release?.();
  await reporter.settled();

  const stored = (await hub.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
    group: API_GROUP,
    version: "v1alpha1",
    namespace: scope.systemNamespace,
    plural: CLUSTER_CONNECTION.plural,
    name: "local",
  })) as { status?: ClusterConnectionStatus };
  expect(stored.status).toMatchObject({ phase: "Connected", discoveredWorkloads: 1 });
});
