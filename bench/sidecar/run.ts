// Sidecar benchmark: throughput and p99 of GET /flags/{name}/value and of an OFREP
// single evaluation with 10 and 5,000 flags, FeatureFlag-write-to-stream-event latency over
// 1,000 changes, start-up time and memory. Everything runs on this machine: a real local
// control plane, the real `svc sidecar` command pinned to CPU 0, autocannon pinned to CPU 1.
//
//   node bench/sidecar/run.ts [--flags 10,5000] [--duration 10] [--changes 1000] [--tool autocannon|wrk]
//                             [--node-args="--max-semi-space-size=1 ..."] [--runtime node|bun]
//
// --runtime bun runs the same sources on Bun (the npm package @oven/bun-linux-x64, a
// devDependency) instead of Node, to choose the sidecar image's runtime by measurement.
//
// --tool wrk (Debian: apt-get install wrk) drives the load from C: autocannon, itself on Node,
// saturates its own core at about 20,000 req/s here, below what the sidecar answers.
//
// The floor: before each sidecar, the same load on a bare node:http server (a fixed 4-byte body,
// any request body read first) on the same CPU, so that every figure has a same-run ratio.
//
// Prints Markdown tables (paste into bench/RESULTS.md) and the raw numbers as JSON.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, API_VERSION, FEATURE_FLAG } from "@svc/core";
import { ensureNamespace, freeLoopbackPort, installCrds } from "@svc/kube";
import { startLocalControlPlane } from "@svc/localkube";
import { openStream } from "../../packages/sidecar/test/support/sse-client.ts";
import { memory } from "../support/process-stats.ts";
import { load, type LoadResult, type LoadTool } from "./load.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const { values: args } = parseArgs({
  options: {
    flags: { type: "string", default: "10,5000" },
    duration: { type: "string", default: "10" },
    changes: { type: "string", default: "1000" },
    // Extra node arguments for the sidecar, e.g. "--max-semi-space-size=1" to compare memory settings.
    "node-args": { type: "string", default: "" },
    tool: { type: "string", default: "autocannon" },
    runtime: { type: "string", default: "node" },
  },
});
const flagCounts = args.flags.split(",").map(Number);
const duration = Number(args.duration);
const changes = Number(args.changes);
const nodeArgs = args["node-args"].split(" ").filter((arg) => arg !== "");
const tool: LoadTool = args.tool === "wrk" ? "wrk" : "autocannon";
const BUN = join(ROOT, "node_modules/@oven/bun-linux-x64/bin/bun");
if (args.runtime !== "node" && args.runtime !== "bun") throw new Error("--runtime must be node or bun");
/** The sidecar's runtime and its arguments before the script. */
const runtime =
  args.runtime === "bun" ? { command: BUN, args: [] } : { command: process.execPath, args: nodeArgs };

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
    ["-c", "0", runtime.command, ...runtime.args, join(ROOT, "packages/cli/src/main.ts"), "sidecar"],
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

/** Bare node:http, the floor: every request answered with the same 4 bytes once its body is read. */
const BARE_HTTP = `
const body = Buffer.from("true");
require("node:http")
  .createServer({ keepAliveTimeout: 65_000 }, (request, response) => {
    request.on("end", () => {
      response.writeHead(200, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": "4" });
      response.end(body);
    });
    request.resume();
  })
  .listen(Number(process.env.PORT), "127.0.0.1");
`;

/** Starts the floor server on CPU 0 and measures spawn → first 200. */
async function startBareHttp(): Promise<Started> {
  const port = await freeLoopbackPort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn("taskset", ["-c", "0", process.execPath, "-e", BARE_HTTP], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "inherit", "inherit"],
  });
  for (let i = 0; i < 2000; i++) {
    const status = await fetch(url).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return { child, url, startupMs: performance.now() - started };
    if (child.exitCode !== null) break;
    await sleep(5);
  }
  throw new Error("bare node:http did not start");
}

async function stop(child: ChildProcess): Promise<void> {
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
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
    process.stderr.write(`${count} flags: the bare node:http floor...\n`);
    const bare = await startBareHttp();
    const barePid = bare.child.pid ?? -1;
    load(tool, barePid, bare.url, 3); // warm-up, as for the sidecar
    const floor = {
      startupMs: Math.round(bare.startupMs),
      get: load(tool, barePid, bare.url, duration),
      post: load(tool, barePid, bare.url, duration, JSON.stringify({ context: { targetingKey: "user-1" } })),
      afterLoad: memory(barePid),
    };
    await stop(bare.child);
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
    load(tool, pid, valueUrl, 3); // warm-up: JIT and connection pools
    process.stderr.write(`${count} flags: load on /value and OFREP...\n`);
    const value = load(tool, pid, valueUrl, duration);
    const ofrep = load(tool, pid, ofrepUrl, duration, body);
    const bulk = load(tool, pid, `${sidecar.url}/ofrep/v1/evaluate/flags`, Math.min(duration, 5), body);
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
      floor,
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
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
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
  "",
  "| flags | floor GET req/s (per CPU-s), p99 | floor POST req/s (per CPU-s), p99 | floor start-up, VmRSS / anon | /value ÷ floor GET: req/s, per CPU-s | OFREP ÷ floor POST: req/s, per CPU-s | start-up ÷ floor | VmRSS ÷ floor | anon ÷ floor |",
  "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...results.map((r) => {
    const floor = r["floor"] as {
      startupMs: number;
      get: LoadResult;
      post: LoadResult;
      afterLoad: { vmRssMb: number; rssAnonMb: number };
    };
    const v = r["value"] as LoadResult;
    const o = r["ofrep"] as LoadResult;
    const m = r["afterLoad"] as { vmRssMb: number; rssAnonMb: number };
    return `| ${String(r["flags"])} | ${floor.get.requestsPerSecond} (${floor.get.requestsPerCpuSecond}), ${floor.get.p99Ms} ms | ${floor.post.requestsPerSecond} (${floor.post.requestsPerCpuSecond}), ${floor.post.p99Ms} ms | ${floor.startupMs} ms, ${f(floor.afterLoad.vmRssMb)} / ${f(floor.afterLoad.rssAnonMb)} MB | ${ratio(v.requestsPerSecond, floor.get.requestsPerSecond)}, ${ratio(v.requestsPerCpuSecond, floor.get.requestsPerCpuSecond)} | ${ratio(o.requestsPerSecond, floor.post.requestsPerSecond)}, ${ratio(o.requestsPerCpuSecond, floor.post.requestsPerCpuSecond)} | ${ratio(r["startupMs"] as number, floor.startupMs)} | ${ratio(m.vmRssMb, floor.afterLoad.vmRssMb)} | ${ratio(m.rssAnonMb, floor.afterLoad.rssAnonMb)} |`;
  }),
];
const load1 = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
process.stdout.write(
  `${lines.join("\n")}\n\nload average at the end: ${load1}\n\n${JSON.stringify(results, null, 2)}\n`,
);
