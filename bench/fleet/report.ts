// The fleet benchmark's Markdown, for bench/RESULTS.md: every figure beside its floor.
import type { ApiLatencies } from "./api-latency.ts";
import type { OperatorMemory as Memory } from "./operator-process.ts";
import type { ReplicaResults } from "./replicas.ts";

export interface FleetResults {
  argv: readonly string[];
  clusterCount: number;
  concurrency: number;
  total: number;
  available: { available: number; deployments: number };
  operatorMs: number;
  floorMs: number;
  /** CPU seconds used during (a)'s window: the operator, the control planes, this process (its watches). */
  operatorCpu: { operator: number; controlPlanes: number; bench: number };
  /** CPU seconds used during the floor's window: the control planes, this process (the bare client). */
  floorCpu: { controlPlanes: number; bench: number };
  writes: number;
  baseline: Memory;
  full: Memory;
  replicas: ReplicaResults;
  api: ApiLatencies;
}

const rate = (n: number, ms: number) => Math.round((n * 1000) / ms);
/** CPU seconds over a window, and the cores that is on average. */
const cores = (seconds: number, ms: number) =>
  `${seconds.toFixed(0)} s (${((seconds * 1000) / ms).toFixed(2)} cores)`;

export function printResults(r: FleetResults): void {
  const operatorRate = rate(r.total, r.operatorMs);
  const floorRate = rate(r.total, r.floorMs);
  const heapPerObject = ((r.full.liveHeapMb - r.baseline.liveHeapMb) * 1024 * 1024) / r.total;
  const { small, large } = r.api;
  const lines = [
    `node bench/fleet/run.ts ${r.argv.join(" ")}`,
    "",
    `${r.clusterCount} clusters, ${r.total} workloads; Deployments available (kwok pods Ready) before the change: ${r.available.available} of ${r.available.deployments}`,
    "",
    "| figure | svc | floor (same run) | svc / floor |",
    "| ------ | --- | ---------------- | ----------- |",
    `| (a) envVar change → all ${r.total} workloads updated | ${(r.operatorMs / 1000).toFixed(1)} s, ${operatorRate} workloads/s (${r.writes} writes) | bare SSA, ${r.concurrency} per cluster: ${(r.floorMs / 1000).toFixed(1)} s, ${floorRate} workloads/s | ${Math.round((100 * operatorRate) / floorRate)} % of the bare rate |`,
    `| (b) operator RSS, all clusters cached | ${r.full.rssMb.toFixed(0)} MB | same operator, clusters empty: ${r.baseline.rssMb.toFixed(0)} MB | +${(r.full.rssMb - r.baseline.rssMb).toFixed(0)} MB |`,
    `| (b) operator live heap (heap snapshot) | ${r.full.liveHeapMb.toFixed(1)} MB | clusters empty: ${r.baseline.liveHeapMb.toFixed(1)} MB | ${Math.round(heapPerObject)} bytes per workload |`,
    `| (c) GET /api/v1/flags?limit=100 (median) | ${large.firstPageMs.toFixed(1)} ms at ${large.flags} flags | ${small.firstPageMs.toFixed(1)} ms at ${small.flags} flags | ${(large.firstPageMs / small.firstPageMs).toFixed(1)}× |`,
    `| (c) GET /api/v1/flags, whole list (median) | ${large.wholeListMs.toFixed(0)} ms at ${large.flags} flags | ${small.wholeListMs.toFixed(1)} ms at ${small.flags} flags | ${(large.wholeListMs / small.wholeListMs).toFixed(0)}× |`,
    `| (a) CPU during the window (2 cores) | operator ${cores(r.operatorCpu.operator, r.operatorMs)}, control planes ${cores(r.operatorCpu.controlPlanes, r.operatorMs)}, the bench's watches ${cores(r.operatorCpu.bench, r.operatorMs)} | bare client ${cores(r.floorCpu.bench, r.floorMs)}, control planes ${cores(r.floorCpu.controlPlanes, r.floorMs)} | |`,
    takeoverRow(r.replicas),
    "",
    `${large.flags} flags created by a bare client (32 at a time) in ${r.api.createSeconds.toFixed(0)} s${r.api.cappedByBudget ? " (stopped by --flag-budget before --flags)" : ""}.`,
    "",
    ...replicaTable(r.replicas),
  ];
  console.log(lines.join("\n"));
}

function takeoverRow({ takeover: t }: ReplicaResults): string {
  const bound = t.leaseSeconds + 5;
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return `| (d) replica killed → its clusters (${t.victimClusters.join(", ")}) have a configMap change | ${s(t.stallMs)} (Lease ${t.leaseSeconds} s; target ≤ ${bound} s): Lease taken after ${s(t.leaseTakenMs)}, caches ready after ${s(t.readyMs)} | the same change in the live replicas' clusters: ${s(t.floorMs)} | +${s(t.stallMs - t.floorMs)} |`;
}

/** Per replica, beside the one replica of the same part (started fresh the same way). */
function replicaTable({ runs }: ReplicaResults): string[] {
  const single = runs.find((run) => run.replicas === 1)?.members[0];
  const ratio = (value: number, of: number | undefined) =>
    of === undefined ? "" : ` (${(value / of).toFixed(2)}×)`;
  const rows = runs.flatMap((run) =>
    run.members.map(
      (m) =>
        `| ${run.replicas} | ${m.name} | ${m.clusters.join(", ")} | ${m.rssMb.toFixed(0)} MB${ratio(m.rssMb, single?.rssMb)} | ${m.liveHeapMb.toFixed(1)} MB${ratio(m.liveHeapMb, single?.liveHeapMb)} | ${run.settledSeconds.toFixed(0)} s |`,
    ),
  );
  return [
    "(d) Sharded replicas, each run started fresh (so not comparable with (b), whose operator had carried every rollout); ratios to the one replica's figures:",
    "",
    "| replicas | replica | its clusters | RSS | live heap | start → clusters held as assigned, queues empty |",
    "| -------- | ------- | ------------ | --- | --------- | ----------------------------------------------- |",
    ...rows,
    "",
    `Clusters paused at a missed renew deadline (caches kept) / stopped because another replica took them (re-listed), over each run: ${runs.map((run) => `${run.replicas} replica(s): ${run.leasePauses} / ${run.leaseLosses}`).join("; ")}.`,
  ];
}
