// The operator's Prometheus metrics, in a registry of its own (one per process).
import { parseWorkQueueKey, type WorkQueueOptions } from "@svc/kube";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/** controller-runtime's buckets of controller_runtime_reconcile_time_seconds. */
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5,
  1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
/** client-go's workqueue buckets: 10 ns to 1,000 s, ×10. */
const WORKQUEUE_BUCKETS = Array.from({ length: 12 }, (_, i) => 1e-8 * 10 ** i);

export interface QueueStats {
  depth: number;
  delayed: number;
}

/** Objects in each cluster's informer caches, by cluster and kind. */
export type CacheSizes = () => { cluster: string; kind: string; objects: number }[];

/** What the reconciles did: their outcomes, the writes they sent, the workloads they delivered, the plan cache. */
function reconcileMetrics(registry: Registry) {
  return {
    reconciles: new Counter({
      name: "svc_operator_reconciles_total",
      help: "Reconciles by cluster, kind and outcome (success; error, retried; terminal, not retried; canceled by shutdown)",
      labelNames: ["cluster", "kind", "outcome"] as const,
      registers: [registry],
    }),
    writes: new Counter({
      name: "svc_operator_writes_total",
      help: "Writes sent to a cluster's API server, by cluster, verb (apply, delete) and kind",
      labelNames: ["cluster", "verb", "kind"] as const,
      registers: [registry],
    }),
    deliveries: new Counter({
      name: "svc_operator_workload_deliveries_total",
      help: "Workloads brought to their plan, by cluster, kind and whether the write restarted pods",
      labelNames: ["cluster", "kind", "restarts"] as const,
      registers: [registry],
    }),
    planCache: new Counter({
      name: "svc_operator_plan_cache_total",
      help: "Lookups of a namespace's workload plans: hit (nothing in the namespace changed since it was planned) or miss (planned again)",
      labelNames: ["result"] as const,
      registers: [registry],
    }),
  };
}

/** The work queue's: wait and work time, adds, and the keys waiting (read at scrape time). */
function queueMetrics(registry: Registry, queueStats: () => QueueStats) {
  return {
    // controller-runtime's and client-go's names, so their dashboards and alerts apply as they are.
    reconcileTime: new Histogram({
      name: "controller_runtime_reconcile_time_seconds",
      help: "Time of each reconcile, by controller (the key's kind) and cluster",
      labelNames: ["controller", "cluster"] as const,
      buckets: RECONCILE_BUCKETS,
      registers: [registry],
    }),
    queueDuration: new Histogram({
      name: "workqueue_queue_duration_seconds",
      help: "How long a key waits in the work queue, from added to processed",
      labelNames: ["name"] as const,
      buckets: WORKQUEUE_BUCKETS,
      registers: [registry],
    }),
    workDuration: new Histogram({
      name: "workqueue_work_duration_seconds",
      help: "How long processing a key takes",
      labelNames: ["name"] as const,
      buckets: WORKQUEUE_BUCKETS,
      registers: [registry],
    }),
    queueAdds: new Counter({
      name: "workqueue_adds_total",
      help: "Keys added to the work queue (an add of a key already waiting counts once)",
      labelNames: ["name"] as const,
      registers: [registry],
    }),
    queueDepth: new Gauge({
      name: "svc_operator_queue_depth",
      help: "Keys waiting in the work queue (ready, not in flight)",
      registers: [registry],
      collect() {
        this.set(queueStats().depth);
      },
    }),
    queueDelayed: new Gauge({
      name: "svc_operator_queue_delayed",
      help: "Keys waiting for a retry back-off or a requested delay",
      registers: [registry],
      collect() {
        this.set(queueStats().delayed);
      },
    }),
  };
}

/** The clusters': cached objects, the leader and cluster Leases held, clusters registered and their phases. */
function clusterMetrics(registry: Registry, cacheSizes: CacheSizes, registeredClusters: () => number) {
  return {
    cachedObjects: new Gauge({
      name: "svc_operator_cached_objects",
      help: "Objects in the informer caches, by cluster and kind",
      labelNames: ["cluster", "kind"] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const { cluster, kind, objects } of cacheSizes()) this.set({ cluster, kind }, objects);
      },
    }),
    leader: new Gauge({
      name: "svc_operator_leader",
      help: "1 while this replica holds the leader Lease and acts (with sharding: while it runs), else 0",
      registers: [registry],
    }),
    clustersHeld: new Gauge({
      name: "svc_operator_clusters_held",
      help: "Clusters whose Lease this replica holds and acts on (sharding by cluster)",
      registers: [registry],
    }),
    clustersRegistered: new Gauge({
      name: "svc_operator_clusters_registered",
      help: "Clusters registered (the local one and each ClusterConnection), as this replica last read them",
      registers: [registry],
      collect() {
        this.set(registeredClusters());
      },
    }),
    clusterPhase: new Gauge({
      name: "svc_operator_cluster_phase",
      help: "1 for the phase each cluster is in (Connected, Disconnected, Error), 0 for the others",
      labelNames: ["cluster", "phase"] as const,
      registers: [registry],
    }),
  };
}

/**
 * `registeredClusters`: how many clusters are registered (the local one and every
 * ClusterConnection), held here or not. Beside the replicas' `svc_operator_clusters_held` it
 * shows a cluster no replica owns, which nothing else can: a cluster nobody holds exports no
 * series of its own.
 */
export function createOperatorMetrics(
  queueStats: () => QueueStats,
  cacheSizes: CacheSizes,
  registeredClusters: () => number,
) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "svc_operator_" });
  // Registered in this order, which is the order of the scrape's output.
  return {
    registry,
    ...reconcileMetrics(registry),
    ...queueMetrics(registry, queueStats),
    ...clusterMetrics(registry, cacheSizes, registeredClusters),
  };
}

export type OperatorMetrics = ReturnType<typeof createOperatorMetrics>;

/**
 * The work queue callbacks that feed the queue metrics. Each cluster has a queue of its own
 * (cluster-queues.ts): a queue's `name` is its cluster's id, read from the key.
 */
export function queueObservers(
  metrics: OperatorMetrics,
): Required<Pick<WorkQueueOptions, "onAdd" | "onStart" | "onDone">> {
  const name = (key: string) => parseWorkQueueKey(key).cluster;
  return {
    onAdd: (key) => {
      metrics.queueAdds.inc({ name: name(key) });
    },
    onStart: (key, queuedMs) => {
      metrics.queueDuration.observe({ name: name(key) }, queuedMs / 1000);
    },
    onDone: (key, outcome, workMs) => {
      const { cluster, kind } = parseWorkQueueKey(key);
      metrics.reconciles.inc({ cluster, kind, outcome });
      metrics.workDuration.observe({ name: cluster }, workMs / 1000);
      metrics.reconcileTime.observe({ controller: kind, cluster }, workMs / 1000);
    },
  };
}
