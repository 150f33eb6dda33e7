// The API load test's results table (api-load.test.ts), for docs/reliability.md.
import { percentile } from "../../bench/support/autocannon.ts";
import type { memory } from "../../bench/support/process-stats.ts";
import type { LoadStats } from "./api-load-phase.ts";
import { writeReport } from "./report.ts";

type Memory = ReturnType<typeof memory>;
export type SettledMemory = Memory & { heapUsedMb: number; heapTotalMb: number; externalMb: number };

export interface ApiLoadRun {
  clients: number;
  seconds: number;
  warmupSeconds: number;
  settleSeconds: number;
  memoryGrowthMib: number;
  heapGrowthMib: number;
  warmup: LoadStats;
  load: LoadStats;
  floor: LoadStats;
  /** Anonymous memory each second of the load, MB. */
  series: number[];
  idle: Memory;
  warm: Memory;
  before: SettledMemory;
  right: Memory;
  settled: SettledMemory;
  apiCpuSeconds: number;
  generatorCpuSeconds: number;
  acked: number;
  lost: number;
  unaudited: number;
}

const perSecond = (stats: LoadStats, n = stats.requests) => n / (stats.elapsedMs / 1000);
const ms = (values: readonly number[], p: number) => `${percentile(values, p).toFixed(1)} ms`;
const fmt = (m: Memory) => `${m.vmRssMb.toFixed(1)} / ${m.rssAnonMb.toFixed(1)} MB`;
const heap = (m: SettledMemory) =>
  `${m.heapUsedMb.toFixed(1)} of ${m.heapTotalMb.toFixed(1)} MB; external ${m.externalMb.toFixed(1)} MB`;
const errorCount = (stats: LoadStats) => [...stats.errors.values()].reduce((a, b) => a + b, 0);

/** The sample at the end of each tenth of the run, in MB. */
const tenths = (series: readonly number[]) =>
  Array.from(
    { length: 10 },
    (_, i) => series[Math.ceil(((i + 1) * series.length) / 10) - 1]?.toFixed(0) ?? "?",
  ).join(", ");

export function reportApiLoad(r: ApiLoadRun): void {
  const { load, floor } = r;
  const errorsOf = (op: string) =>
    [...load.errors].filter(([k]) => k.startsWith(`${op}: `)).reduce((n, [, c]) => n + c, 0);
  const rows = [...load.durations]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([op, values]) =>
        `| ${op} | ${values.length} | ${perSecond(load, values.length).toFixed(1)} | ${ms(values, 50)} | ${ms(values, 99)} | ${errorsOf(op)} |`,
    );
  const all = [...load.durations.values()].flat();
  const healthz = floor.durations.get("GET /healthz") ?? [];
  const errors = [...r.warmup.errors, ...load.errors, ...floor.errors].map(([k, n]) => `${n}× ${k}`);
  writeReport(
    "api-load",
    [
      `### API under load: ${r.clients} clients for ${r.seconds} s (admin, editor, viewer: a third each), svc api pinned to one core, PostgreSQL`,
      "",
      "| operation | requests | req/s | p50 | p99 | errors |",
      "| --- | ---: | ---: | ---: | ---: | ---: |",
      ...rows,
      `| **all (mixed load)** | ${load.requests} | ${perSecond(load).toFixed(1)} | ${ms(all, 50)} | ${ms(all, 99)} | ${errorCount(load)} |`,
      `| GET /healthz, the same ${r.clients} clients, ${(floor.elapsedMs / 1000).toFixed(0)} s (floor) | ${floor.requests} | ${perSecond(floor).toFixed(1)} | ${ms(healthz, 50)} | ${ms(healthz, 99)} | ${errorCount(floor)} |`,
      "",
      "| | result |",
      "| --- | ---: |",
      `| mixed load req/s ÷ /healthz req/s (same clients, same run) | ${((perSecond(load) / perSecond(floor)) * 100).toFixed(1)} % |`,
      `| errors by kind: 30 s timeout, transport, 5xx, other status, stale own read (warm-up, load, floor) | ${errors.length === 0 ? "0" : errors.join("; ")} |`,
      `| writes acknowledged (warm-up included); lost; without their audit event | ${r.acked}; ${r.lost}; ${r.unaudited} |`,
      `| CPU during the load: svc api (its own core); the load generator | ${r.apiCpuSeconds.toFixed(1)} s; ${r.generatorCpuSeconds.toFixed(1)} s of ${r.seconds} s |`,
      `| svc api memory (VmRSS / anon), started and idle | ${fmt(r.idle)} |`,
      `| right after a ${r.warmupSeconds} s warm-up (the same load) | ${fmt(r.warm)} |`,
      `| before the load: ${r.settleSeconds} s after the warm-up, after a full GC (V8 heap used of total; Buffers) | ${fmt(r.before)} (${heap(r.before)}) |`,
      `| anon memory during the load, at the end of each tenth | ${tenths(r.series)} |`,
      `| right after the load | ${fmt(r.right)} |`,
      `| settled: ${r.settleSeconds} s after the load, after a full GC (V8 heap used of total; Buffers) | ${fmt(r.settled)} (${heap(r.settled)}) |`,
      `| bounds: settled anon ≤ before + ${r.memoryGrowthMib} MiB; V8 heap used ≤ before + ${r.heapGrowthMib} MiB | ${(r.before.rssAnonMb + r.memoryGrowthMib).toFixed(1)} MB; ${(r.before.heapUsedMb + r.heapGrowthMib).toFixed(1)} MB |`,
    ].join("\n"),
  );
}
