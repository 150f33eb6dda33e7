// The queue's timings reach the registry under controller-runtime's and client-go's names.
import { describe, expect, it } from "vitest";
import { createOperatorMetrics, queueObservers } from "../src/metrics.ts";

describe("queueObservers", () => {
  it("records reconcile time by controller (the key's kind) and cluster, and queue and work durations by cluster queue", async () => {
    const metrics = createOperatorMetrics(
      () => ({ depth: 0, delayed: 0 }),
      () => [],
      () => 3,
    );
    const observers = queueObservers(metrics);
    observers.onAdd("east/shop/Deployment/web");
    observers.onStart("east/shop/Deployment/web", 250);
    observers.onDone("east/shop/Deployment/web", "success", 1500);
    const text = await metrics.registry.metrics();
    // Each cluster's queue is its own, named after the cluster.
    expect(text).toContain('workqueue_adds_total{name="east"} 1');
    expect(text).toContain('workqueue_queue_duration_seconds_sum{name="east"} 0.25');
    expect(text).toContain('workqueue_work_duration_seconds_sum{name="east"} 1.5');
    expect(text).toContain(
      'controller_runtime_reconcile_time_seconds_bucket{le="1.5",controller="Deployment",cluster="east"} 1',
    );
    expect(text).toContain(
      'controller_runtime_reconcile_time_seconds_bucket{le="1.25",controller="Deployment",cluster="east"} 0',
    );
    expect(text).toContain(
      'svc_operator_reconciles_total{cluster="east",kind="Deployment",outcome="success"} 1',
    );
    // Read at scrape time: the alert on a cluster without an owning replica compares it with the held ones.
    expect(text).toContain("svc_operator_clusters_registered 3");
  });
});
