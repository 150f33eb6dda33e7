// The peer for targeted evaluation: Unleash's open-source proxy (@unleash/proxy) over
// unleash-server, on a PostgreSQL server of its own, answering a gradual rollout (flexibleRollout
// 50 % by userId) made through Unleash's admin API. Both are npm packages installed into
// .cache/unleash (git-ignored), never dependencies of the project. Both processes run on CPU 0
// (as the sidecar does in bench/sidecar/run.ts) and the load is measured on the CPU of both.
//
//   node bench/sidecar/unleash-peer.ts [--duration 10] [--tool autocannon|wrk] [--keys 10000]
//
// The CLI measures, in the same run, the sidecar (the real `svc sidecar` on Bun, as the image
// runs it, on CPU 0, against a local control plane) answering OFREP single evaluations of the
// equivalent flagd flag (`fractional` 50/50) for the same context, then the proxy; and the share
// of "on" each gives over --keys users. bench/sidecar/run.ts can call startUnleashPeer and
// measureUnleashPeer itself. Prints a Markdown table and the raw numbers as JSON.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { CustomObjectsApi } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, API_VERSION, FEATURE_FLAG } from "@svc/core";
import { ensureNamespace, freeLoopbackPort, installCrds, waitFor } from "@svc/kube";
import { startLocalControlPlane, superviseProcess, type SupervisedProcess } from "@svc/localkube";
import { startSidecarProcess } from "../../packages/sidecar/test/support/sidecar-process.ts";
import { startPostgresServer } from "../../test/support/postgres-server.ts";
import { load, type LoadResult, type LoadTool } from "./load.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const UNLEASH_DIR = join(ROOT, ".cache/unleash");
/** Pinned, so that repeated runs compare the same peer. */
const UNLEASH_PACKAGES = ["unleash-server@8.2.0", "@unleash/proxy@1.4.19"];
const FLAG = "rollout";
const ADMIN_TOKEN = "*:*.svc-bench-admin";
const BACKEND_TOKEN = "default:development.svc-bench-backend";
const PROXY_KEY = "svc-bench-proxy-key";
/** The context of the sidecar's OFREP row in bench/sidecar/run.ts, as Unleash names it. */
export const PEER_CONTEXT = { userId: "user-1" };

export interface UnleashPeer {
  proxyUrl: string;
  /** The proxy's and unleash-server's process ids: the CPU measured is theirs together. */
  pids: number[];
  /** Whether the proxy answers the rollout enabled for this user. */
  enabledFor: (userId: string) => Promise<boolean>;
  stop: () => Promise<void>;
}

/** Installs the pinned packages into .cache/unleash once (npm's ordinary client). */
export function installUnleash(): void {
  if (existsSync(join(UNLEASH_DIR, "node_modules/@unleash/proxy/package.json"))) return;
  execFileSync("npm", ["install", "--prefix", UNLEASH_DIR, "--no-audit", "--no-fund", ...UNLEASH_PACKAGES], {
    stdio: "inherit",
  });
}

/** A Node script in .cache/unleash (so that it resolves the packages there), pinned to CPU 0. */
function nodeOnCpu0(name: string, script: string, env: Record<string, string>): SupervisedProcess {
  return superviseProcess({
    name,
    command: "taskset",
    args: ["-c", "0", process.execPath, "-e", script],
    cwd: UNLEASH_DIR,
    env: { PATH: process.env["PATH"] ?? "", ...env },
  });
}

const answers = (url: string, init?: RequestInit) =>
  fetch(url, init).then(
    (r) => r.ok,
    () => false,
  );

/**
 * POSTs JSON; a request on a kept-alive connection the server closed meanwhile (Node's 5 s
 * keep-alive timeout racing the client's reuse) is sent once more.
 */
async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const send = () =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  return send().catch(send);
}

async function admin(serverUrl: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${serverUrl}/api/admin/projects/default/features${path}`, {
    method: "POST",
    headers: { authorization: ADMIN_TOKEN, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`Unleash admin API ${path}: ${response.status} ${await response.text()}`);
}

/** unleash-server on `postgresUrl` and the proxy over it, with the rollout made and served. */
export async function startUnleashPeer(postgresUrl: string): Promise<UnleashPeer> {
  installUnleash();
  const serverPort = await freeLoopbackPort();
  const serverUrl = `http://127.0.0.1:${serverPort}`;
  const server = nodeOnCpu0("unleash-server", 'require("unleash-server").start()', {
    DATABASE_URL: postgresUrl,
    DATABASE_SSL: "false",
    HTTP_HOST: "127.0.0.1",
    HTTP_PORT: String(serverPort),
    INIT_ADMIN_API_TOKENS: ADMIN_TOKEN,
    INIT_BACKEND_API_TOKENS: BACKEND_TOKEN,
    LOG_LEVEL: "warn",
    CHECK_VERSION: "false",
    SEND_TELEMETRY: "false",
  });
  const proxyPort = await freeLoopbackPort();
  const proxyUrl = `http://127.0.0.1:${proxyPort}`;
  let proxy: SupervisedProcess | undefined;
  const stop = async () => {
    await proxy?.stop({ graceMs: 5_000 });
    await server.stop({ graceMs: 5_000 });
  };
  try {
    await server.waitReady(() => answers(`${serverUrl}/health`), 120_000, 250);
    await admin(serverUrl, "", { name: FLAG, type: "release" });
    await admin(serverUrl, `/${FLAG}/environments/development/strategies`, {
      name: "flexibleRollout",
      constraints: [],
      parameters: { rollout: "50", stickiness: "userId", groupId: FLAG },
    });
    await admin(serverUrl, `/${FLAG}/environments/development/on`, {});
    // The proxy answers on loopback only (its own start() listens on every address).
    const script = `require("@unleash/proxy").createApp({
      unleashUrl: "${serverUrl}/api", unleashApiToken: "${BACKEND_TOKEN}",
      clientKeys: ["${PROXY_KEY}"], refreshInterval: 1000, logLevel: "warn",
    }).listen(${proxyPort}, "127.0.0.1");`;
    proxy = nodeOnCpu0("unleash-proxy", script, {});
    const enabledFor = async (userId: string) => {
      const response = await postJson(
        `${proxyUrl}/proxy`,
        { context: { userId }, toggles: [FLAG] },
        { authorization: PROXY_KEY },
      );
      if (!response.ok) throw new Error(`proxy answered ${response.status}`);
      const { toggles } = (await response.json()) as { toggles: { name: string; enabled: boolean }[] };
      return toggles.some((t) => t.name === FLAG && t.enabled);
    };
    // Served once some of a few users get it (the proxy answers 503 until its first fetch).
    await proxy.waitReady(async () => {
      const users = Array.from({ length: 16 }, (_, i) => `user-${i}`);
      const seen = await Promise.all(users.map((u) => enabledFor(u).catch(() => false)));
      return seen.some(Boolean);
    }, 60_000);
    return { proxyUrl, pids: [proxy.pid ?? -1, server.pid ?? -1], enabledFor, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The proxy's evaluation of the rollout for PEER_CONTEXT under load, per CPU-second of both processes. */
export function measureUnleashPeer(peer: UnleashPeer, tool: LoadTool, seconds: number): LoadResult {
  const body = JSON.stringify({ context: PEER_CONTEXT, toggles: [FLAG] });
  return load(tool, peer.pids, `${peer.proxyUrl}/proxy`, seconds, body, { authorization: PROXY_KEY });
}

/** The share of `keys` for which `enabled` holds, asked 50 at a time. */
async function share(keys: string[], enabled: (key: string) => Promise<boolean>): Promise<number> {
  let on = 0;
  for (let start = 0; start < keys.length; start += 50)
    for (const yes of await Promise.all(keys.slice(start, start + 50).map(enabled))) if (yes) on++;
  return on / keys.length;
}

async function main(): Promise<void> {
  const { values: args } = parseArgs({
    options: {
      duration: { type: "string", default: "10" },
      tool: { type: "string", default: "autocannon" },
      keys: { type: "string", default: "10000" },
    },
  });
  const duration = Number(args.duration);
  const tool: LoadTool = args.tool === "wrk" ? "wrk" : "autocannon";
  const keys = Array.from({ length: Number(args.keys) }, (_, i) => `user-${i}`);
  const controlPlane = await startLocalControlPlane();
  const postgres = await startPostgresServer();
  try {
    const kc = controlPlane.kubeConfig();
    await installCrds(kc);
    const namespace = "bench-peer";
    await ensureNamespace(kc, namespace);
    await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace,
      plural: FEATURE_FLAG.plural,
      body: {
        apiVersion: API_GROUP_VERSION,
        kind: FEATURE_FLAG.kind,
        metadata: { name: FLAG },
        spec: {
          type: "boolean",
          defaultValue: "false",
          variants: { on: "true", off: "false" },
          defaultVariant: "off",
          targeting: {
            fractional: [
              ["on", 50],
              ["off", 50],
            ],
          },
          delivery: { sidecar: { selector: { matchLabels: { app: "web" } } } },
        },
      },
    });
    const sidecar = await startSidecarProcess({
      namespace,
      kubeconfigPath: controlPlane.kubeconfigPath,
      cpus: "0",
      bun: true,
    });
    const ofrepUrl = `${sidecar.url}/ofrep/v1/evaluate/flags/${FLAG}`;
    const sidecarVariant = async (targetingKey: string) => {
      const response = await postJson(ofrepUrl, { context: { targetingKey } });
      return ((await response.json()) as { variant?: string }).variant;
    };
    await waitFor(
      () => sidecarVariant("user-1"),
      (v) => v === "on" || v === "off",
      {
        what: "the sidecar evaluating the rollout",
        timeoutMs: 30_000,
        intervalMs: 200,
      },
    );
    const ofrepBody = JSON.stringify({ context: { targetingKey: PEER_CONTEXT.userId } });
    process.stderr.write("sidecar: OFREP single evaluation of the rollout under load...\n");
    load(tool, sidecar.pid, ofrepUrl, 3, ofrepBody); // warm-up
    const sidecarLoad = load(tool, sidecar.pid, ofrepUrl, duration, ofrepBody);
    const sidecarShare = await share(keys, async (k) => (await sidecarVariant(k)) === "on");
    await sidecar.stop();

    process.stderr.write("Unleash: server and proxy on PostgreSQL...\n");
    const peer = await startUnleashPeer(postgres.url);
    try {
      measureUnleashPeer(peer, tool, 3); // warm-up
      process.stderr.write("Unleash: the proxy under load...\n");
      const peerLoad = measureUnleashPeer(peer, tool, duration);
      const peerShare = await share(keys, peer.enabledFor);
      print({ tool, duration, keys: keys.length, sidecarLoad, sidecarShare, peerLoad, peerShare });
    } finally {
      await peer.stop();
    }
  } finally {
    await postgres.stop();
    await controlPlane.stop();
  }
}

function print(r: {
  tool: LoadTool;
  duration: number;
  keys: number;
  sidecarLoad: LoadResult;
  sidecarShare: number;
  peerLoad: LoadResult;
  peerShare: number;
}): void {
  const pct = (n: number) => `${(100 * n).toFixed(2)} %`;
  const row = (what: string, l: LoadResult, on: number) =>
    `| ${what} | ${l.requestsPerSecond} | ${l.requestsPerCpuSecond} | ${l.sidecarCpuShare} | ${l.p50Ms} / ${l.p99Ms} ms | ${l.errors + l.non2xx} | ${pct(on)} |`;
  const lines = [
    `| server | req/s | req per CPU-s | CPU-s per s | p50 / p99 | errors + non-2xx | on over ${r.keys} users |`,
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    row("svc sidecar (Bun), OFREP single, fractional 50/50", r.sidecarLoad, r.sidecarShare),
    row("Unleash proxy + unleash-server, POST /proxy, flexibleRollout 50 %", r.peerLoad, r.peerShare),
    "",
    `sidecar ÷ Unleash per CPU-second: ${(r.sidecarLoad.requestsPerCpuSecond / r.peerLoad.requestsPerCpuSecond).toFixed(2)}×`,
  ];
  process.stdout.write(`${lines.join("\n")}\n\n${JSON.stringify(r, null, 2)}\n`);
}

if (process.argv[1] === import.meta.filename) await main();
