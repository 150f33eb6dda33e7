// The sidecar's HTTP layer, measured against Go's net/http (issue 21): requests answered per
// CPU-second of the server process (from /proc/<pid>/stat), each server pinned to CPU 0 and the
// load generator to CPU 1, 50 connections, for three requests: an OFREP single evaluation of a
// static flag, of a targeted (`fractional`) flag, and GET /flags/{name}/value. Servers, in one run:
//
//   go        bench/sidecar/go-floor: net/http answering one fixed JSON body (the floor)
//   bun-http  `svc sidecar` on Bun through node:http, as the sidecar image runs it
//   bun-serve bench/sidecar/bun-serve.ts on Bun: the sidecar's flag state behind Bun.serve
//   node-http `svc sidecar` on Node through node:http
//
//   node bench/sidecar/http-layer.ts [--duration 10] [--rounds 2] [--tool wrk|autocannon]
//
// wrk (Debian: apt-get install wrk) is the default: autocannon, itself on Node, saturates its
// core below what Go and Bun.serve answer. The Go floor is built with the project's Go
// (hack/controlplane/build.sh's settings) into .cache/bench. Prints a Markdown table and JSON.
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { CustomObjectsApi } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, API_VERSION, FEATURE_FLAG } from "@svc/core";
import { ensureNamespace, freeLoopbackPort, installCrds } from "@svc/kube";
import { startLocalControlPlane } from "@svc/localkube";
import { startSidecarProcess } from "../../packages/sidecar/test/support/sidecar-process.ts";
import { load, type LoadResult, type LoadTool } from "./load.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const BUN = join(ROOT, "node_modules/@oven/bun-linux-x64/bin/bun");
const GO = process.env["GO"] ?? "/usr/local/go/bin/go";
const { values: args } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    rounds: { type: "string", default: "2" },
    tool: { type: "string", default: "wrk" },
  },
});
const duration = Number(args.duration);
const rounds = Number(args.rounds);
const tool: LoadTool = args.tool === "autocannon" ? "autocannon" : "wrk";
const NAMESPACE = "bench";
const CONTEXT = JSON.stringify({ context: { targetingKey: "user-1" } });

const FLAGS = [
  { name: "static", spec: { type: "integer", defaultValue: "42" } },
  {
    name: "targeted",
    spec: {
      type: "string",
      defaultValue: "blue",
      variants: { blue: "blue", green: "green" },
      defaultVariant: "blue",
      targeting: {
        fractional: [
          ["blue", 50],
          ["green", 50],
        ],
      },
    },
  },
];
const REQUESTS = [
  { label: "OFREP single, static flag", path: "/ofrep/v1/evaluate/flags/static", body: CONTEXT },
  { label: "OFREP single, targeted (fractional)", path: "/ofrep/v1/evaluate/flags/targeted", body: CONTEXT },
  { label: "GET /flags/{name}/value", path: "/flags/static/value", body: undefined },
] as const;

interface Server {
  url: string;
  pid: number;
  stop: () => Promise<void>;
}

function buildGoFloor(): string {
  const out = join(ROOT, ".cache/bench/go-floor");
  mkdirSync(join(ROOT, ".cache/bench"), { recursive: true });
  execFileSync(GO, ["build", "-o", out, "."], {
    cwd: join(ROOT, "bench/sidecar/go-floor"),
    env: { ...process.env, GOTOOLCHAIN: "local", CGO_ENABLED: "0", GOFLAGS: "-trimpath" },
    stdio: "inherit",
  });
  return out;
}

/** Spawns a server on CPU 0 and waits for /healthz (or any) 200. */
async function startPinned(command: string[], env: Record<string, string>): Promise<Server> {
  const port = await freeLoopbackPort();
  const child: ChildProcess = spawn("taskset", ["-c", "0", ...command], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 2000; i++) {
    const status = await fetch(`${url}/healthz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) {
      return {
        url,
        pid: child.pid ?? -1,
        stop: async () => {
          child.kill("SIGTERM");
          if (child.exitCode === null) await new Promise((r) => child.once("exit", r));
        },
      };
    }
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`${command.join(" ")} did not start`);
}

/** What each request gets: checked before the load, so a fast wrong answer is not measured. */
async function answers(url: string): Promise<string[]> {
  return Promise.all(
    REQUESTS.map(async (r) => {
      const response = await fetch(url + r.path, {
        method: r.body === undefined ? "GET" : "POST",
        ...(r.body !== undefined && { body: r.body, headers: { "content-type": "application/json" } }),
      });
      return `${response.status} ${await response.text()}`;
    }),
  );
}

const goFloor = buildGoFloor();
const controlPlane = await startLocalControlPlane();
const measured: { server: string; round: number; request: string; result: LoadResult }[] = [];
const seen: Record<string, string[]> = {};
try {
  const kc = controlPlane.kubeConfig();
  await installCrds(kc);
  await ensureNamespace(kc, NAMESPACE);
  const api = kc.makeApiClient(CustomObjectsApi);
  const objects = FLAGS.map((f) => ({
    apiVersion: API_GROUP_VERSION,
    kind: FEATURE_FLAG.kind,
    metadata: { name: f.name },
    spec: { ...f.spec, delivery: { sidecar: { selector: { matchLabels: { app: "web" } } } } },
  }));
  for (const body of objects) {
    await api.createNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace: NAMESPACE,
      plural: FEATURE_FLAG.plural,
      body,
    });
  }
  const flagsFile = join(ROOT, ".cache/bench/http-layer-flags.json");
  writeFileSync(flagsFile, JSON.stringify(objects));
  const sidecar = (bun: boolean) => async (): Promise<Server> => {
    const started = await startSidecarProcess({
      namespace: NAMESPACE,
      kubeconfigPath: controlPlane.kubeconfigPath,
      cpus: "0",
      bun,
    });
    return started;
  };
  const servers: [string, () => Promise<Server>][] = [
    ["go", () => startPinned([goFloor], {})],
    ["bun-http", sidecar(true)],
    [
      "bun-serve",
      () => startPinned([BUN, join(ROOT, "bench/sidecar/bun-serve.ts")], { FLAGS_FILE: flagsFile }),
    ],
    ["node-http", sidecar(false)],
  ];
  for (let round = 1; round <= rounds; round++) {
    for (const [name, start] of servers) {
      process.stderr.write(`round ${round}: ${name}...\n`);
      const server = await start();
      seen[name] = await answers(server.url);
      load(tool, server.pid, server.url + REQUESTS[0].path, 3, CONTEXT); // warm-up
      for (const r of REQUESTS) {
        measured.push({
          server: name,
          round,
          request: r.label,
          result: load(tool, server.pid, server.url + r.path, duration, r.body),
        });
      }
      await server.stop();
    }
  }
} finally {
  await controlPlane.stop();
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const cell = (server: string, request: string) => {
  const rows = measured.filter((m) => m.server === server && m.request === request).map((m) => m.result);
  return {
    perCpu: mean(rows.map((r) => r.requestsPerCpuSecond)),
    range: rows.map((r) => r.requestsPerCpuSecond),
    rps: mean(rows.map((r) => r.requestsPerSecond)),
    cpu: mean(rows.map((r) => r.sidecarCpuShare)),
    p99: Math.max(...rows.map((r) => r.p99Ms)),
    bad: rows.reduce((n, r) => n + r.errors + r.non2xx, 0),
  };
};
const k = (n: number) => `${(n / 1000).toFixed(1)} k`;
const lines = [
  "| request | server | ÷ Go floor (per CPU-s) | req per CPU-s (each round) | req/s | server CPU | p99 | errors + non-2xx |",
  "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
];
for (const r of REQUESTS) {
  const floor = cell("go", r.label).perCpu;
  for (const server of ["go", "bun-http", "bun-serve", "node-http"]) {
    const c = cell(server, r.label);
    lines.push(
      `| ${r.label} | ${server} | ${(c.perCpu / floor).toFixed(2)}× | ${k(c.perCpu)} (${c.range.map(k).join(", ")}) | ${k(c.rps)} | ${c.cpu.toFixed(2)} | ${c.p99} ms | ${c.bad} |`,
    );
  }
}
const load1 = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
process.stdout.write(
  `${lines.join("\n")}\n\nload average at the end: ${load1}\n\nanswers:\n${JSON.stringify(seen, null, 2)}\n\n${JSON.stringify(measured)}\n`,
);
