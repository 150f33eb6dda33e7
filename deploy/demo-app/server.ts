// The demo application: an HTTP server that shows the flags its pod sees, so that a person (or a
// test) can watch svc deliver them. Node 24 runs it as it is (type stripping), with no
// dependencies, as a non-root user on a read-only root filesystem (it writes nothing).
//   GET /            a small HTML page of the view below
//   GET /flags.json  {env: FLAG_* variables, files: "<configMap>/<key>" → content under
//                    SVC_FLAGS_DIR, sidecar: the sidecar's GET /flags, stream: what its
//                    subscription to the sidecar's /flags/stream received, hostname, startedAt}
//   GET /healthz     200
// Settings: PORT (default 8080; 0 picks a free one), HOST (default all addresses),
// SVC_FLAGS_DIR (default /etc/svc-flags), SVC_SIDECAR_PORT (the sidecar on 127.0.0.1; unset:
// no sidecar). The files are read on every request: a ConfigMap volume changes in place.
// FLAG_CRASH_ON_START=true makes it exit 1 at start: a bad flag value for the safe-change demo.
import { readdir, readFile } from "node:fs/promises";
import { createServer, type ServerResponse } from "node:http";
import { hostname } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  asksToCrash,
  CRASH_ON_START,
  envFlags,
  type FlagView,
  isFlagEntry,
  renderPage,
  sidecarPort,
  type StreamView,
  takeEvents,
} from "./flags.ts";

const startedAt = new Date().toISOString();
const flagsDir = process.env.SVC_FLAGS_DIR ?? "/etc/svc-flags";
let port: number;
let sidecar: number | undefined;
try {
  port = Number(process.env.PORT ?? "8080");
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, got "${process.env.PORT ?? ""}"`);
  sidecar = sidecarPort(process.env.SVC_SIDECAR_PORT);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(2);
}
if (asksToCrash(process.env)) {
  console.error(`${CRASH_ON_START}=true: exiting, as a bad flag value makes an app do`);
  process.exit(1);
}

async function entries(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter(isFlagEntry).sort();
  } catch {
    return [];
  }
}

/** Every file of every ConfigMap folder under the flags folder (links followed). */
async function readFlagFiles(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const configMap of await entries(flagsDir))
    for (const key of await entries(join(flagsDir, configMap))) {
      try {
        files[`${configMap}/${key}`] = await readFile(join(flagsDir, configMap, key), "utf8");
      } catch {
        // A folder, or a key removed while we read: not a flag file now.
      }
    }
  return files;
}

async function readSidecar(): Promise<unknown> {
  if (sidecar === undefined) return null;
  try {
    const response = await fetch(`http://127.0.0.1:${sidecar}/flags`, { signal: AbortSignal.timeout(2000) });
    if (!response.ok) return { error: `the sidecar answered HTTP ${response.status}` };
    return await response.json();
  } catch (error) {
    if (!(error instanceof Error)) return { error: String(error) };
    // fetch's own message is "fetch failed"; the reason (ECONNREFUSED...) is its cause.
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return { error: `${error.message}${cause}` };
  }
}

const stream: StreamView = { connected: false, events: 0, lastEvent: null };

/** Follows the sidecar's change stream for the life of the process, reconnecting after a second. */
async function followStream(port: number): Promise<never> {
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/flags/stream`);
      if (response.ok && response.body !== null) {
        stream.connected = true;
        const decoder = new TextDecoder();
        let buffer = "";
        for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
          const { events, rest } = takeEvents(buffer + decoder.decode(chunk, { stream: true }));
          buffer = rest;
          stream.events += events.length;
          stream.lastEvent = events.at(-1) ?? stream.lastEvent;
        }
      }
    } catch {
      // Not listening yet, or gone: try again.
    }
    stream.connected = false;
    await sleep(1000);
  }
}
if (sidecar !== undefined) void followStream(sidecar);

async function view(): Promise<FlagView> {
  const [files, sidecarFlags] = await Promise.all([readFlagFiles(), readSidecar()]);
  return {
    env: envFlags(process.env),
    files,
    sidecar: sidecarFlags,
    stream: sidecar === undefined ? null : { ...stream },
    hostname: hostname(),
    startedAt,
  };
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  response.end(body);
}

const server = createServer((request, response) => {
  const path = new URL(request.url ?? "/", "http://demo").pathname;
  if (request.method !== "GET" && request.method !== "HEAD") {
    send(response, 405, "text/plain; charset=utf-8", "method not allowed\n");
    return;
  }
  if (path === "/healthz") {
    send(response, 200, "text/plain; charset=utf-8", "ok\n");
    return;
  }
  if (path !== "/" && path !== "/flags.json") {
    send(response, 404, "text/plain; charset=utf-8", "not found\n");
    return;
  }
  view().then(
    (current) => {
      if (path === "/") send(response, 200, "text/html; charset=utf-8", renderPage(current));
      else send(response, 200, "application/json", `${JSON.stringify(current, null, 2)}\n`);
    },
    (error: unknown) => {
      send(response, 500, "text/plain; charset=utf-8", `${String(error)}\n`);
    },
  );
});

server.listen(port, process.env.HOST, () => {
  const address = server.address();
  const actual = typeof address === "object" && address !== null ? address.port : port;
  console.log(`svc demo: listening on port ${actual}, flags from ${flagsDir}`);
});

// Kubernetes stops a pod with SIGTERM: stop at once (nothing to drain but idle connections).
for (const signal of ["SIGTERM", "SIGINT"] as const)
  process.on(signal, () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
