// The watchers of the fleet-watch bench (fleet-watch.ts): sidecar-style (the sidecar's own list
// and watch loop, runWatchLoop, with its own connection each) and bare (one plain HTTP watch
// request each, the floor), and a pass-through that timestamps connections arriving at the
// kube-apiserver.
import * as https from "node:https";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { pino } from "pino";
import { FlagState } from "../../packages/sidecar/src/flags.ts";
import { FeatureFlagClient } from "../../packages/sidecar/src/kube-client.ts";
import type { KubeConnection } from "../../packages/sidecar/src/kube-connection.ts";
import { runWatchLoop } from "../../packages/sidecar/src/watch.ts";
import { API_GROUP, API_VERSION, FEATURE_FLAG } from "@svc/core/vocabulary";

export interface Watchers {
  /** Resolves when every watcher has its namespace's flags. */
  readonly synced: Promise<void>;
  /** Watch events received (bare) or flag changes applied (sidecar-style), all watchers together. */
  events(): number;
  /** Failed lists or watches (sidecar-style; a bare watch that fails rejects `synced`). */
  failures(): number;
  /** How many failures gave each error message. */
  failureReasons(): Record<string, number>;
  stop(): void;
}

/** `count` sidecar list-and-watch loops, watcher i on namespaces[i % namespaces.length]. */
export function sidecarWatchers(
  connection: KubeConnection,
  namespaces: readonly string[],
  count: number,
  startJitterMs: number,
): Watchers {
  const abort = new AbortController();
  let events = 0;
  let failures = 0;
  const reasons: Record<string, number> = {};
  // The loop's warnings name the error; tally them instead of printing 2,000 lines.
  const log = pino(
    { level: "warn" },
    {
      write(line: string) {
        const err = (JSON.parse(line) as { err?: string }).err ?? "?";
        const reason = err.replace(/\d+/g, "N").slice(0, 120);
        reasons[reason] = (reasons[reason] ?? 0) + 1;
      },
    },
  );
  const clients: FeatureFlagClient[] = [];
  const synced = Array.from({ length: count }, (_, i) => {
    const client = new FeatureFlagClient(connection, namespaces[i % namespaces.length] ?? "");
    clients.push(client);
    return new Promise<void>((resolve) => {
      void runWatchLoop(
        {
          client,
          state: new FlagState(),
          onChanges: (changes) => (events += changes.length),
          onSynced: resolve,
          onConnection: (connected) => {
            if (!connected) failures++;
          },
          log,
          startJitterMs,
        },
        abort.signal,
      );
    });
  });
  return {
    synced: Promise.all(synced).then(() => undefined),
    events: () => events,
    failures: () => failures,
    failureReasons: () => reasons,
    stop() {
      abort.abort();
      for (const client of clients) client.close();
    },
  };
}

/**
 * `count` plain watch requests (`watch=1&resourceVersion=0`: the namespace's flags as ADDED
 * events from the watch cache, then changes), each on its own connection as each sidecar has;
 * synced once each has received `flagsPerNamespace` events.
 */
export function bareWatchers(
  connection: KubeConnection,
  namespaces: readonly string[],
  count: number,
  flagsPerNamespace: number,
): Watchers {
  const abort = new AbortController();
  let events = 0;
  const agents: https.Agent[] = [];
  const synced = Array.from({ length: count }, (_, i) => {
    const namespace = namespaces[i % namespaces.length] ?? "";
    const agent = new https.Agent({
      keepAlive: true,
      ...(connection.ca && { ca: connection.ca }),
      ...(connection.cert && { cert: connection.cert }),
      ...(connection.key && { key: connection.key }),
    });
    agents.push(agent);
    const path = `/apis/${API_GROUP}/${API_VERSION}/namespaces/${namespace}/${FEATURE_FLAG.plural}?watch=1&resourceVersion=0`;
    const token = connection.token();
    return new Promise<void>((resolve, reject) => {
      const request = https.get(
        new URL(connection.server + path),
        {
          agent,
          signal: abort.signal,
          headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
        },
        (response) => {
          if (response.statusCode !== 200) reject(new Error(`bare watch: ${response.statusCode}`));
          let received = 0;
          response.on("data", (chunk: Buffer) => {
            const lines = countNewlines(chunk);
            received += lines;
            events += lines;
            if (received >= flagsPerNamespace) resolve();
          });
          response.on("error", () => undefined);
        },
      );
      request.on("error", (error) => {
        if (!abort.signal.aborted) reject(error);
      });
    });
  });
  return {
    synced: Promise.all(synced).then(() => undefined),
    events: () => events,
    failures: () => 0,
    failureReasons: () => ({}),
    stop() {
      abort.abort();
      for (const agent of agents) agent.destroy();
    },
  };
}

function countNewlines(chunk: Buffer): number {
  let n = 0;
  for (const byte of chunk) if (byte === 10) n++;
  return n;
}

export interface ArrivalCounter {
  /** The same connection, through the pass-through. */
  readonly connection: KubeConnection;
  /** Stops the pass-through; when each connection arrived, in ms since `since()` was called. */
  close(): Promise<number[]>;
  /** Marks time zero (the instant the sidecars start). */
  since(): void;
}

// The pass-through runs in a process of its own: in the bench's process, busy with 2,000 TLS
// handshakes, the accept timestamps would be the client's event loop's, not the arrivals'.
const PASS_THROUGH = `
const net = require("node:net");
const [host, port] = [process.argv[1], Number(process.argv[2])];
let zero = performance.now();
const arrivals = [];
const server = net.createServer((client) => {
  arrivals.push(performance.now() - zero);
  const apiserver = net.connect(port, host);
  for (const s of [client, apiserver]) s.on("error", () => undefined);
  client.on("close", () => apiserver.destroy());
  apiserver.on("close", () => client.destroy());
  client.pipe(apiserver).pipe(client);
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
process.on("message", (m) => {
  if (m === "zero") zero = performance.now();
  if (m === "report") process.send(arrivals, () => process.exit(0));
});
`;

/**
 * A TCP pass-through to the kube-apiserver (TLS stays end to end), in a child process, that
 * records when each connection arrives: each sidecar opens one connection for its list, then
 * watches on it.
 */
export async function countArrivals(connection: KubeConnection): Promise<ArrivalCounter> {
  const upstream = new URL(connection.server);
  const child = spawn(process.execPath, ["-e", PASS_THROUGH, upstream.hostname, upstream.port], {
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  if (child.stdout === null) throw new Error("the pass-through has no stdout");
  const [line] = (await once(child.stdout, "data")) as [Buffer];
  const port = Number(line.toString().trim());
  return {
    connection: { ...connection, server: `https://127.0.0.1:${port}` },
    since() {
      child.send("zero");
    },
    async close() {
      const reported = once(child, "message");
      child.send("report");
      const [arrivals] = (await reported) as [number[]];
      await once(child, "exit");
      return arrivals;
    },
  };
}
