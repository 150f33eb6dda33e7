// API server benchmark: login throughput and GET /api/v1/auth/me latency (p50/p99) at 50
// concurrent clients over loopback, on SQLite and on PostgreSQL; then, during a flood of logins
// as unknown users (50 clients), what one user sees of /auth/me and of their own login, as a
// ratio to the same user's figures without the flood, measured in the same run. The real
// `svc api` command runs pinned to CPU 0 (its bcrypt threads too), autocannon pinned to CPU 1.
//
//   node bench/api/run.ts [--duration 10] [--backends sqlite,postgres] [--log-level info]
//
// Prints a Markdown table (paste into the "API server" section of bench/RESULTS.md) and JSON.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { autocannon, type LoadResult } from "../support/autocannon.ts";
import { BENCH_ADMIN_PASSWORD, loginAdmin, startSvcApi } from "../support/svc-api.ts";
import { startPostgresServer, type PostgresServer } from "../../test/support/postgres-server.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const CONNECTIONS = 50;
const { values: args } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    backends: { type: "string", default: "sqlite,postgres" },
    "log-level": { type: "string", default: "info" },
  },
});
const duration = Number(args.duration);

/** autocannon on CPU 1: 50 connections (unless told) for `duration` seconds. */
function load(url: string, options: { token?: string; body?: string; connections?: number }): LoadResult {
  return autocannon(url, { ...options, connections: options.connections ?? CONNECTIONS, seconds: duration });
}

interface Samples {
  p50Ms: number;
  p99Ms: number;
  /** How many answers of each status. */
  statuses: Record<string, number>;
}

/** One client's requests, one after another, for `seconds`. */
async function sampleFor(seconds: number, request: () => Promise<Response>): Promise<Samples> {
  const times: number[] = [];
  const statuses: Record<string, number> = {};
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    const start = performance.now();
    const reply = await request();
    await reply.arrayBuffer();
    times.push(performance.now() - start);
    statuses[reply.status] = (statuses[reply.status] ?? 0) + 1;
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0);
  return { p50Ms: at(0.5), p99Ms: at(0.99), statuses };
}

/** Logins as unknown users from 50 clients on CPU 1 (a new username per request) for `seconds`. */
function loginFlood(url: string, seconds: number): ChildProcess {
  const body = JSON.stringify({ username: "flood-[<id>]", password: "not-the-password" });
  return spawn(
    "taskset",
    ["-c", "1", join(ROOT, "node_modules/.bin/autocannon"), "-c", "50", "-d", String(seconds), "-I"].concat([
      "-m",
      "POST",
      "-H",
      "content-type=application/json",
      "-b",
      body,
      `${url}/api/v1/auth/login`,
    ]),
    { stdio: "ignore" },
  );
}

/** What one user sees of /auth/me and of their own login, without and then during a login flood. */
async function floodRows(backend: string, url: string, token: string): Promise<Record<string, unknown>[]> {
  const me = () => fetch(`${url}/api/v1/auth/me`, { headers: { authorization: `Bearer ${token}` } });
  const body = JSON.stringify({ username: "admin", password: BENCH_ADMIN_PASSWORD });
  const ownLogin = () =>
    fetch(`${url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
  const half = duration / 2;
  const quiet = { me: await sampleFor(half, me), login: await sampleFor(half, ownLogin) };
  const flood = loginFlood(url, duration + 2);
  const floodEnded = once(flood, "exit");
  await new Promise((r) => setTimeout(r, 1000));
  const busy = { me: await sampleFor(half, me), login: await sampleFor(half, ownLogin) };
  await floodEnded;
  return (["me", "login"] as const).map((which) => ({
    backend,
    request: which === "me" ? "GET /api/v1/auth/me" : "POST /api/v1/auth/login (own, right password)",
    quietP50Ms: quiet[which].p50Ms,
    floodP50Ms: busy[which].p50Ms,
    floodP99Ms: busy[which].p99Ms,
    ratioP50: Math.round((busy[which].p50Ms / Math.max(1, quiet[which].p50Ms)) * 10) / 10,
    floodStatuses: busy[which].statuses,
  }));
}

const rows: Record<string, unknown>[] = [];
const floods: Record<string, unknown>[] = [];
for (const backend of args.backends.split(",")) {
  let postgres: PostgresServer | undefined;
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-api-"));
  let env: Record<string, string>;
  if (backend === "postgres") {
    postgres = await startPostgresServer();
    env = { SVC_DATABASE_URL: postgres.url };
  } else {
    env = { SVC_DATABASE_PATH: join(dir, "svc.sqlite") };
  }
  const { child, url } = await startSvcApi(env, args["log-level"]);
  try {
    const token = await loginAdmin(url);
    const run = (endpoint: string, connections: number, result: LoadResult) => {
      rows.push({ backend, endpoint, connections, ...result });
    };
    // Warm-up (JIT, connection pool), not recorded.
    load(`${url}/api/v1/auth/me`, { token });
    // First, while no login is queued: the quiet figures are the floor of the flood's ratios.
    floods.push(...(await floodRows(backend, url, token)));
    run("GET /healthz (no auth, no SQL: the framework's floor)", 50, load(`${url}/healthz`, {}));
    run("GET /api/v1/auth/me", 50, load(`${url}/api/v1/auth/me`, { token }));
    run("GET /api/v1/auth/me", 1, load(`${url}/api/v1/auth/me`, { token, connections: 1 }));
    const body = JSON.stringify({ username: "admin", password: BENCH_ADMIN_PASSWORD });
    run("POST /api/v1/auth/login", 50, load(`${url}/api/v1/auth/login`, { body }));
  } finally {
    child.kill("SIGTERM");
    await once(child, "exit");
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const header = "| backend | endpoint | clients | req/s | p50 ms | p99 ms | errors | non-2xx |";
const lines = rows.map(
  (r) =>
    `| ${String(r["backend"])} | ${String(r["endpoint"])} | ${String(r["connections"])} | ${String(r["requestsPerSecond"])} | ` +
    `${String(r["p50Ms"])} | ${String(r["p99Ms"])} | ${String(r["errors"])} | ${String(r["non2xx"])} |`,
);
const floodHeader =
  "| backend | one client's request | p50 ms alone | p50 ms in the flood | ratio | p99 ms in the flood | statuses in the flood |";
const floodLines = floods.map(
  (r) =>
    `| ${String(r["backend"])} | ${String(r["request"])} | ${String(r["quietP50Ms"])} | ${String(r["floodP50Ms"])} | ` +
    `${String(r["ratioP50"])} | ${String(r["floodP99Ms"])} | ${JSON.stringify(r["floodStatuses"])} |`,
);
process.stdout.write(
  [
    header,
    "|---|---|---|---|---|---|---|---|",
    ...lines,
    "",
    floodHeader,
    "|---|---|---|---|---|---|---|",
    ...floodLines,
    "",
    JSON.stringify({ rows, floods }, null, 2),
    "",
  ].join("\n"),
);
