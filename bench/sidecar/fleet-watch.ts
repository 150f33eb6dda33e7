// Sidecars at fleet scale (issue 22): what 2,000 sidecar watchers cost kube-apiserver against
// 2,000 bare watches of the same FeatureFlags (the floor), in the same run, and how fast
// connections arrive when every sidecar starts at once, with and without the start jitter.
//
//   node bench/sidecar/fleet-watch.ts [--watchers 2000] [--namespaces 100] [--flags 5]
//                                     [--window 30] [--writes 5] [--jitters 0,500,2000]
//
// One local control plane; kube-apiserver is restarted (same etcd) before each arm so that every
// arm starts from a fresh process (its RSS is not the previous arm's high-water mark). An arm:
// connect every watcher (CPU and seconds until all have their flags), then a steady window of
// `--window` seconds with `--writes` flag updates per second spread over the namespaces (CPU per
// second, RSS at the end). CPU is utime+stime of kube-apiserver from /proc/<pid>/stat. The
// watchers run in this process, one connection each, as each sidecar has its own.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { ensureNamespace, installCrds } from "@svc/kube";
import { defaultBinDir, startLocalControlPlane } from "@svc/localkube";
import { DEFAULT_START_JITTER_MS } from "../../packages/sidecar/src/backoff.ts";
import { FeatureFlagClient } from "../../packages/sidecar/src/kube-client.ts";
import { loadKubeconfig } from "../../packages/sidecar/src/kube-connection.ts";
import { flagWriter } from "../../packages/sidecar/test/support/flags-api.ts";
import { pool } from "../support/pool.ts";
import { cpuSeconds, memory } from "../support/process-stats.ts";
import { bareWatchers, countArrivals, sidecarWatchers, type Watchers } from "./fleet-watchers.ts";

const { values: args } = parseArgs({
  options: {
    watchers: { type: "string", default: "2000" },
    namespaces: { type: "string", default: "100" },
    flags: { type: "string", default: "5" },
    window: { type: "string", default: "30" },
    writes: { type: "string", default: "5" },
    jitters: { type: "string", default: `0,${DEFAULT_START_JITTER_MS},2000` },
  },
});
const watcherCount = Number(args.watchers);
const flagsPerNamespace = Number(args.flags);
const windowSeconds = Number(args.window);
const writesPerSecond = Number(args.writes);

const controlPlane = await startLocalControlPlane();
const kc = controlPlane.kubeConfig();
await installCrds(kc);
const namespaces = Array.from({ length: Number(args.namespaces) }, (_, i) => `fleet-${i}`);
const writers = namespaces.map((namespace) => flagWriter(kc, namespace));
await pool(namespaces, 16, (namespace) => ensureNamespace(kc, namespace));
await pool(
  writers.flatMap((writer) => Array.from({ length: flagsPerNamespace }, (_, f) => ({ writer, f }))),
  16,
  ({ writer, f }) => writer.create(`flag-${f}`, "string", "v0"),
);
const connection = await loadKubeconfig(controlPlane.kubeconfigPath);
console.log(
  `${watcherCount} watchers over ${namespaces.length} namespaces × ${flagsPerNamespace} flags; ${execFileSync(join(defaultBinDir(), "kube-apiserver"), ["--version"], { encoding: "utf8" }).trim()}\n`,
);

function apiserverPid(): number {
  const pid = controlPlane.pids.find(
    (p) => p > 0 && readFileSync(`/proc/${p}/comm`, "utf8").trim() === "kube-apiserver",
  );
  if (pid === undefined) throw new Error("kube-apiserver is not running");
  return pid;
}

const probe = new FeatureFlagClient(connection, namespaces[0] ?? "");

/**
 * A fresh kube-apiserver on the same etcd, its FeatureFlags watch cache initialised (a watch
 * from it answers; before, it is "storage is (re)initializing"), then idle for a few seconds.
 */
async function freshApiServer(): Promise<number> {
  await controlPlane.stopApiServer();
  await controlPlane.startApiServer();
  for (;;) {
    const ok = await probe
      .watch({
        resourceVersion: "0",
        signal: AbortSignal.timeout(10_000),
        timeoutSeconds: 1,
        silenceMs: 10_000,
        onOpen: () => undefined,
        onEvent: () => undefined,
      })
      .then(() => true)
      .catch(() => false);
    if (ok) break;
    await sleep(500);
  }
  await sleep(5000);
  return apiserverPid();
}

/** Values never repeat across arms: an update to the same value is no change and sends no event. */
let written = 0;

/** `--writes` updates per second for `--window` seconds, round-robin over namespaces and flags. */
async function steadyWrites(): Promise<void> {
  const total = windowSeconds * writesPerSecond;
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / writesPerSecond;
    await sleep(Math.max(0, due - performance.now()));
    const writer = writers[i % writers.length];
    await writer?.setValue(`flag-${Math.floor(i / writers.length) % flagsPerNamespace}`, `v${++written}`);
  }
  await sleep(Math.max(0, started + windowSeconds * 1000 - performance.now()));
}

interface ArmResult {
  arm: string;
  connectCpu: number;
  connectSeconds: number;
  steadyCpuPerSecond: number;
  rssMb: number;
  eventsPerWrite: number;
  failures: number;
}

async function arm(name: string, start: (() => Watchers) | undefined): Promise<ArmResult> {
  const pid = await freshApiServer();
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  const watchers = start?.();
  await watchers?.synced;
  const connectSeconds = (performance.now() - t0) / 1000;
  const cpu1 = cpuSeconds(pid);
  const events0 = watchers?.events() ?? 0;
  await steadyWrites();
  const cpu2 = cpuSeconds(pid);
  const result = {
    arm: name,
    connectCpu: cpu1 - cpu0,
    connectSeconds,
    steadyCpuPerSecond: (cpu2 - cpu1) / windowSeconds,
    rssMb: memory(pid).vmRssMb,
    eventsPerWrite: ((watchers?.events() ?? 0) - events0) / (windowSeconds * writesPerSecond),
    failures: watchers?.failures() ?? 0,
  };
  watchers?.stop();
  console.log(JSON.stringify({ ...result, failedBecause: watchers?.failureReasons() }));
  return result;
}

const idle = await arm("no watchers", undefined);
const bare = await arm("bare watches", () =>
  bareWatchers(connection, namespaces, watcherCount, flagsPerNamespace),
);
const sidecar = await arm("sidecar watchers", () => sidecarWatchers(connection, namespaces, watcherCount, 0));

interface StampedeResult {
  jitterMs: number;
  peakPer100ms: number;
  peakPerSecond: number;
  spreadSeconds: number;
  allSyncedSeconds: number;
  apiserverCpu: number;
  failures: number;
}

/** Every sidecar starts at the same instant; connections are timestamped as they arrive. */
async function stampede(jitterMs: number): Promise<StampedeResult> {
  const pid = await freshApiServer();
  const counter = await countArrivals(connection);
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  counter.since();
  const watchers = sidecarWatchers(counter.connection, namespaces, watcherCount, jitterMs);
  await watchers.synced;
  const allSyncedSeconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(pid) - cpu0;
  watchers.stop();
  const arrivals = await counter.close();
  const peak = (bucketMs: number) => {
    const buckets = new Map<number, number>();
    for (const ms of arrivals)
      buckets.set(Math.floor(ms / bucketMs), (buckets.get(Math.floor(ms / bucketMs)) ?? 0) + 1);
    return Math.max(0, ...buckets.values()) * (1000 / bucketMs);
  };
  const result = {
    jitterMs,
    peakPer100ms: peak(100),
    peakPerSecond: peak(1000),
    spreadSeconds: (arrivals.at(-1) ?? 0) / 1000,
    allSyncedSeconds,
    apiserverCpu: cpu,
    failures: watchers.failures(),
  };
  console.log(
    JSON.stringify({ ...result, connections: arrivals.length, failedBecause: watchers.failureReasons() }),
  );
  return result;
}

const stampedes: StampedeResult[] = [];
for (const jitter of args.jitters.split(",").map(Number)) stampedes.push(await stampede(jitter));
probe.close();
await controlPlane.stop();

const f = (n: number, digits = 2) => n.toFixed(digits);
const ratio = (value: number, floor: number) => (floor > 0 ? `${f(value / floor)}×` : "–");
console.log(
  `\n| arm | connect: apiserver CPU-s (ratio) | connect: s | steady: apiserver CPU-s/s (ratio) | RSS MB (ratio) | events per write |`,
);
console.log(`| --- | --- | --- | --- | --- | --- |`);
for (const r of [idle, bare, sidecar]) {
  console.log(
    `| ${r.arm} | ${f(r.connectCpu)} (${ratio(r.connectCpu, bare.connectCpu)}) | ${f(r.connectSeconds, 1)} | ${f(r.steadyCpuPerSecond, 3)} (${ratio(r.steadyCpuPerSecond, bare.steadyCpuPerSecond)}) | ${f(r.rssMb, 0)} (${ratio(r.rssMb, bare.rssMb)}) | ${f(r.eventsPerWrite, 1)} |`,
  );
}
console.log(
  `\n| start jitter | peak connections/s (100 ms buckets) | peak per 1 s | arrivals spread over | all synced after | apiserver CPU-s | failed requests |`,
);
console.log(`| --- | --- | --- | --- | --- | --- | --- |`);
for (const s of stampedes) {
  console.log(
    `| ${s.jitterMs} ms | ${f(s.peakPer100ms, 0)} | ${f(s.peakPerSecond, 0)} | ${f(s.spreadSeconds, 2)} s | ${f(s.allSyncedSeconds, 2)} s | ${f(s.apiserverCpu)} | ${s.failures} |`,
  );
}
