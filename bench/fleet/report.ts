// The fleet benchmark's Markdown, for bench/RESULTS.md: every figure beside its floor.
import type { ApiLatencies } from "./api-latency.ts";

interface Memory {
  rssMb: number;
  liveHeapMb: number;
}

export interface FleetResults {
  argv: readonly string[];
  clusterCount: number;
  concurrency: number;
  total: number;
  available: { available: number; deployments: number };
  operatorMs: number;
  floorMs: number;
  writes: number;
  baseline: Memory;
  full: Memory;
  api: ApiLatencies;
}

const rate = (n: number, ms: number) => Math.round((n * 1000) / ms);

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
    "| operator replica killed → takeover stall | not measured: needs sharding | | |",
    "",
    `${large.flags} flags created by a bare client (32 at a time) in ${r.api.createSeconds.toFixed(0)} s${r.api.cappedByBudget ? " (stopped by --flag-budget before --flags)" : ""}.`,
  ];
  console.log(lines.join("\n"));
}
