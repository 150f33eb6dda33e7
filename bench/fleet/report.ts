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
  delivery: readonly DeliveryRound[];
  baseline: Memory;
  full: Memory;
  replicas: ReplicaResults;
  api: ApiLatencies;
}

/** One round of (a): the operator's window and the bare floor's, adjacent. */
export interface DeliveryRound {
  round: number;
  /** Whether svc's window came first (odd rounds) or the floor's. */
  svcFirst: boolean;
  /** CPU seconds: the operator, the control planes, this process (its watches). */
  svc: { ms: number; writes: number; cpu: { operator: number; controlPlanes: number; bench: number } };
  /** CPU seconds: the control planes, this process (the bare client). */
  floor: { ms: number; cpu: { controlPlanes: number; bench: number } };
}

const rate = (n: number, ms: number) => Math.round((n * 1000) / ms);
/** CPU seconds over a window, and the cores that is on average. */
const cores = (seconds: number, ms: number) =>
  `${seconds.toFixed(0)} s (${((seconds * 1000) / ms).toFixed(2)} cores)`;

export function printResults(r: FleetResults): void {
  const heapPerObject = ((r.full.liveHeapMb - r.baseline.liveHeapMb) * 1024 * 1024) / r.total;
  const { small, large } = r.api;
  const lines = [
    `node bench/fleet/run.ts ${r.argv.join(" ")}`,
    "",
    `${r.clusterCount} clusters, ${r.total} workloads; Deployments available (kwok pods Ready) before the change: ${r.available.available} of ${r.available.deployments}`,
    "",
    "| figure | svc | floor (same run) | svc / floor |",
    "| ------ | --- | ---------------- | ----------- |",
    ...r.delivery.flatMap((d) => deliveryRows(d, r.total, r.concurrency)),
    `| (b) operator RSS, all clusters cached | ${r.full.rssMb.toFixed(0)} MB | same operator, clusters empty: ${r.baseline.rssMb.toFixed(0)} MB | +${(r.full.rssMb - r.baseline.rssMb).toFixed(0)} MB |`,
    `| (b) operator live heap (heap snapshot) | ${r.full.liveHeapMb.toFixed(1)} MB | clusters empty: ${r.baseline.liveHeapMb.toFixed(1)} MB | ${Math.round(heapPerObject)} bytes per workload |`,
    `| (c) GET /api/v1/flags?limit=100 (median) | ${large.firstPageMs.toFixed(1)} ms at ${large.flags} flags | ${small.firstPageMs.toFixed(1)} ms at ${small.flags} flags | ${(large.firstPageMs / small.firstPageMs).toFixed(1)}× |`,
    `| (c) GET /api/v1/flags, whole list (median) | ${large.wholeListMs.toFixed(0)} ms at ${large.flags} flags | ${small.wholeListMs.toFixed(1)} ms at ${small.flags} flags | ${(large.wholeListMs / small.wholeListMs).toFixed(0)}× |`,
    takeoverRow(r.replicas),
    "",
    `${large.flags} flags created by a bare client (32 at a time) in ${r.api.createSeconds.toFixed(0)} s${r.api.cappedByBudget ? " (stopped by --flag-budget before --flags)" : ""}.`,
    "",
    ...replicaTable(r.replicas),
  ];
  console.log(lines.join("\n"));
}

function deliveryRows(
  { round, svcFirst, svc, floor }: DeliveryRound,
  total: number,
  concurrency: number,
): string[] {
  const first = svcFirst ? "svc first" : "floor first";
  return [
    `| (a) round ${round} (${first}): envVar change → all ${total} workloads updated | ${(svc.ms / 1000).toFixed(1)} s, ${rate(total, svc.ms)} workloads/s (${svc.writes} writes) | bare SSA, ${concurrency} per cluster: ${(floor.ms / 1000).toFixed(1)} s, ${rate(total, floor.ms)} workloads/s | ${Math.round((100 * floor.ms) / svc.ms)} % of the bare rate |`,
    `| (a) round ${round}: CPU in the window | operator ${cores(svc.cpu.operator, svc.ms)}, control planes ${cores(svc.cpu.controlPlanes, svc.ms)}, the bench's watches ${cores(svc.cpu.bench, svc.ms)} | bare client ${cores(floor.cpu.bench, floor.ms)}, control planes ${cores(floor.cpu.controlPlanes, floor.ms)} | |`,
  ];
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
