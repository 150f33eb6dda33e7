// The operator's Prometheus metrics, in a registry of its own (one per process).
import { collectDefaultMetrics, Counter, Gauge, Registry } from "prom-client";

export interface QueueStats {
  depth: number;
  delayed: number;
}

/** Objects in each cluster's informer caches, by cluster and kind. */
export type CacheSizes = () => { cluster: string; kind: string; objects: number }[];

export function createOperatorMetrics(queueStats: () => QueueStats, cacheSizes: CacheSizes) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "svc_operator_" });
  return {
    registry,
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
      help: "1 while this replica holds the leader Lease and acts, else 0",
      registers: [registry],
    }),
    clusterPhase: new Gauge({
      name: "svc_operator_cluster_phase",
      help: "1 for the phase each cluster is in (Connected, Disconnected, Error), 0 for the others",
      labelNames: ["cluster", "phase"] as const,
      registers: [registry],
    }),
  };
}

export type OperatorMetrics = ReturnType<typeof createOperatorMetrics>;
