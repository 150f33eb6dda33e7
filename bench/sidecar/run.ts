// Sidecar benchmark (issue 4): throughput and p99 of GET /flags/{name}/value and of an OFREP
// single evaluation with 10 and 5,000 flags, FeatureFlag-write-to-stream-event latency over
// 1,000 changes, start-up time and memory. Everything runs on this machine: a real local
// control plane, the real `svc sidecar` command pinned to CPU 0, autocannon pinned to CPU 1.
//
//   node bench/sidecar/run.ts [--flags 10,5000] [--duration 10] [--changes 1000] [--tool autocannon|wrk]
//                             [--node-args="--max-semi-space-size=1 ..."]
//
// --tool wrk (Debian: apt-get install wrk) drives the load from C: autocannon, itself on Node,
// saturates its own core at about 20,000 req/s here, below what the sidecar answers.
//
// Prints a Markdown table (paste into bench/RESULTS.md) and the raw numbers as JSON.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, API_VERSION, FEATURE_FLAG } from "@svc/core";
import { ensureNamespace, freeLoopbackPort, installCrds } from "@svc/kube";
import { startLocalControlPlane } from "@svc/kube/testing";
import { openStream } from "../../packages/sidecar/test/support/sse-client.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const { values: args } = parseArgs({
  options: {
    flags: { type: "string", default: "10,5000" },
    duration: { type: "string", default: "10" },
    changes: { type: "string", default: "1000" },
    // Extra node arguments for the sidecar, e.g. "--max-semi-space-size=1" to compare memory settings.
    "node-args": { type: "string", default: "" },
    tool: { type: "string", default: "autocannon" },
  },
});
const flagCounts = args.flags.split(",").map(Number);
const duration = Number(args.duration);
const changes = Number(args.changes);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function createFlags(kc: KubeConfig, namespace: string, count: number): Promise<void> {
  const api = kc.makeApiClient(CustomObjectsApi);
  const types = [
    ["boolean", "true"],
    ["integer", "42"],
    ["string", "blue"],
    ["json", '{"tiers":[1,2,3]}'],
  ] as const;
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const [type, defaultValue] = types[i % types.length] ?? types[0];
      await api.createNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        namespace,
        plural: FEATURE_FLAG.plural,
        body: {
          apiVersion: API_GROUP_VERSION,
          kind: FEATURE_FLAG.kind,
          metadata: { name: `flag-${String(i).padStart(5, "0")}` },
          spec: { type, defaultValue, delivery: { sidecar: { selector: { matchLabels: { app: "web" } } } } },
        },
      });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

interface Started {
  child: ChildProcess;
  url: string;
  startupMs: number;
}

/** Starts `svc sidecar` on CPU 0 and measures spawn → /healthz 200 (flags listed). */
async function startSidecar(namespace: string, kubeconfig: string): Promise<Started> {
  const port = await freeLoopbackPort();
  const url = `http://127.0.0.1:${port}`;
  const compileCache = join(ROOT, ".cache/node-compile-cache");
  mkdirSync(compileCache, { recursive: true });
  const started = performance.now();
  const child = spawn(
    "taskset",
    ["-c", "0", process.execPath, join(ROOT, "packages/cli/src/main.ts"), "sidecar"],
    {
      env: {
        ...process.env,
        POD_NAMESPACE: namespace,
        KUBECONFIG: kubeconfig,
        SVC_SIDECAR_PORT: String(port),
        SVC_SIDECAR_HOST: "127.0.0.1",
        SVC_LOG_LEVEL: "warn",
        // As the container image would ship it: TypeScript stripped once, not at every start.
        NODE_COMPILE_CACHE: compileCache,
      },
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  for (;;) {
    const status = await fetch(`${url}/healthz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return { child, url, startupMs: performance.now() - started };
    if (child.exitCode !== null) throw new Error("sidecar exited");
    await sleep(5);
  }
}

/** The sidecar's own process (taskset execs node, so the pid is node's). */
function memory(pid: number): { vmRssMb: number; rssAnonMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { vmRssMb: kb("VmRSS") / 1024, rssAnonMb: kb("RssAnon") / 1024 };
}

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface LoadResult {
  requestsPerSecond: number;
  /** Requests per CPU-second the sidecar used: its throughput on a core of its own. */
  requestsPerCpuSecond: number;
  sidecarCpuShare: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

/** The load generator (autocannon or wrk) on CPU 1, 50 connections, loopback; and the sidecar's CPU use meanwhile. */
function load(pid: number, url: string, seconds: number, post?: string): LoadResult {
  const cpuBefore = cpuSeconds(pid);
  const measured = args.tool === "wrk" ? wrk(url, seconds, post) : autocannon(url, seconds, post);
  const cpu = cpuSeconds(pid) - cpuBefore;
  return {
    requestsPerSecond: Math.round(measured.total / measured.seconds),
    requestsPerCpuSecond: Math.round(measured.total / cpu),
    sidecarCpuShare: Math.round((100 * cpu) / measured.seconds) / 100,
    p50Ms: measured.p50Ms,
    p99Ms: measured.p99Ms,
    errors: measured.errors,
    non2xx: measured.non2xx,
  };
}

interface Measured {
  total: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

function autocannon(url: string, seconds: number, post?: string): Measured {
  const argv = [
    "-c",
    "1",
    join(ROOT, "node_modules/.bin/autocannon"),
    "-j",
    "-c",
    "50",
    "-d",
    String(seconds),
  ];
  if (post !== undefined) argv.push("-m", "POST", "-H", "content-type=application/json", "-b", post);
  argv.push(url);
  const out = execFileSync("taskset", argv, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const result = JSON.parse(out) as {
    requests: { total: number };
    duration: number;
    latency: { p50: number; p99: number };
    errors: number;
    non2xx: number;
  };
  return {
    total: result.requests.total,
    seconds: result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

function wrk(url: string, seconds: number, post?: string): Measured {
  const argv = ["-c", "1", "wrk", "-t1", "-c50", `-d${seconds}s`, "--latency"];
  if (post !== undefined) {
    const script = join(tmpdir(), "svc-bench-post.lua");
    writeFileSync(
      script,
      `wrk.method = "POST"\nwrk.body = ${JSON.stringify(post)}\nwrk.headers["Content-Type"] = "application/json"\n`,
    );
    argv.push("-s", script);
  }
  argv.push(url);
  const out = execFileSync("taskset", argv, { encoding: "utf8" });
  const ms = (label: string) => {
    const match = new RegExp(`^\\s+${label}%\\s+([\\d.]+)(us|ms|s)$`, "m").exec(out);
    if (!match) throw new Error(`wrk printed no ${label}% latency:\n${out}`);
    return Number(match[1]) * (match[2] === "us" ? 0.001 : match[2] === "s" ? 1000 : 1);
  };
  const total = /(\d+) requests in ([\d.]+)(m?s)/.exec(out);
  if (!total) throw new Error(`wrk printed no total:\n${out}`);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    total: Number(total[1]),
    seconds: Number(total[2]) / (total[3] === "ms" ? 1000 : 1),
    p50Ms: ms("50"),
    p99Ms: ms("99"),
    errors: errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
  };
}

/** Sequential writes of one flag through the API; for each, write start → its stream event. */
async function changeToEvent(
  kc: KubeConfig,
  namespace: string,
  url: string,
  count: number,
): Promise<number[]> {
  const api = kc.makeApiClient(CustomObjectsApi);
  const waiting = new Map<string, () => void>();
  const stream = await openStream(url, {}, (event) => {
    const flag = event.data as { name: string; value: string };
    if (flag.name === "flag-00002") waiting.get(flag.value)?.();
  });
  await sleep(500);
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const value = `bench-${i}`;
    const seen = new Promise<void>((r) => waiting.set(value, r));
    const start = performance.now();
    await api.patchNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace,
      plural: FEATURE_FLAG.plural,
      name: "flag-00002",
      body: [{ op: "replace", path: "/spec/defaultValue", value }],
    });
    await seen;
    samples.push(performance.now() - start);
    waiting.delete(value);
  }
  stream.close();
  return samples.sort((a, b) => a - b);
}

const controlPlane = await startLocalControlPlane();
const results: Record<string, unknown>[] = [];
try {
  const kc = controlPlane.kubeConfig();
  await installCrds(kc);
  for (const count of flagCounts) {
    const namespace = `bench-${count}`;
    await ensureNamespace(kc, namespace);
    process.stderr.write(`creating ${count} flags...\n`);
    await createFlags(kc, namespace, count);
    // A first start fills the compile cache; the measured start is the second one.
    (await startSidecar(namespace, controlPlane.kubeconfigPath)).child.kill("SIGTERM");
    await sleep(500);
    const sidecar = await startSidecar(namespace, controlPlane.kubeconfigPath);
    const pid = sidecar.child.pid ?? -1;
    const idle = memory(pid);
    const valueUrl = `${sidecar.url}/flags/flag-00001/value`;
    const ofrepUrl = `${sidecar.url}/ofrep/v1/evaluate/flags/flag-00001`;
    const body = JSON.stringify({ context: { targetingKey: "user-1" } });
    load(pid, valueUrl, 3); // warm-up: JIT and connection pools
    process.stderr.write(`${count} flags: load on /value and OFREP...\n`);
    const value = load(pid, valueUrl, duration);
    const ofrep = load(pid, ofrepUrl, duration, body);
    const bulk = load(pid, `${sidecar.url}/ofrep/v1/evaluate/flags`, Math.min(duration, 5), body);
    process.stderr.write(`${count} flags: ${changes} changes...\n`);
    const latencies = await changeToEvent(kc, namespace, sidecar.url, changes);
    const afterLoad = memory(pid);
    // Last, since it loads prom-client: where the memory is (V8 heap, young generation, buffers).
    const metrics = await (await fetch(`${sidecar.url}/metrics`)).text();
    const heap = Object.fromEntries(
      [
        ...metrics.matchAll(
          /^nodejs_(heap_size_used_bytes|heap_size_total_bytes|external_memory_bytes) (\d+)/gm,
        ),
      ].map((m) => [m[1] ?? "", Math.round(Number(m[2]) / 1e5) / 10]),
    );
    sidecar.child.kill("SIGTERM");
    await new Promise((r) => sidecar.child.once("exit", r));
    results.push({
      flags: count,
      startupMs: Math.round(sidecar.startupMs),
      idle,
      afterLoad,
      heapMb: heap,
      value,
      ofrep,
      ofrepBulk: bulk,
      changeToEvent: {
        count: latencies.length,
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        maxMs: latencies.at(-1),
      },
    });
  }
} finally {
  await controlPlane.stop();
}

const f = (n: number, digits = 1) => n.toFixed(digits);
const lines = [
  "| flags | /value req/s (per CPU-s) | /value p99 | OFREP single req/s (per CPU-s) | OFREP p99 | OFREP bulk req/s | change→event p50 / p99 | start-up | RSS (VmRSS / anon) after load |",
  "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...results.map((r) => {
    const v = r["value"] as LoadResult;
    const o = r["ofrep"] as LoadResult;
    const b = r["ofrepBulk"] as LoadResult;
    const c = r["changeToEvent"] as { p50Ms: number; p99Ms: number };
    const m = r["afterLoad"] as { vmRssMb: number; rssAnonMb: number };
    return `| ${String(r["flags"])} | ${v.requestsPerSecond} (${v.requestsPerCpuSecond}) | ${v.p99Ms} ms | ${o.requestsPerSecond} (${o.requestsPerCpuSecond}) | ${o.p99Ms} ms | ${b.requestsPerSecond} | ${f(c.p50Ms)} / ${f(c.p99Ms)} ms | ${String(r["startupMs"])} ms | ${f(m.vmRssMb)} / ${f(m.rssAnonMb)} MB |`;
  }),
];
process.stdout.write(`${lines.join("\n")}\n\n${JSON.stringify(results, null, 2)}\n`);
