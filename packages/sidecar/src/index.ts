// `svc sidecar`: watch the namespace's FeatureFlags, keep them in memory, serve them over HTTP
// (flags, value, stream, OFREP). runSidecar wires the parts and owns their lifecycle.
import { once } from "node:events";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { pino, type Logger } from "pino";
import type { Registry } from "prom-client";
import type { BackoffPolicy } from "./backoff.ts";
import type { SidecarConfig } from "./config.ts";
import { COMPILED_RULES, FlagState, type FlagChange, type RefusedRules } from "./flags.ts";
import { FeatureFlagClient } from "./kube-client.ts";
import { inClusterConnection, loadKubeconfig, type KubeConnection } from "./kube-connection.ts";
import { createRegistry } from "./metrics.ts";
import { readPodLabels } from "./pod-labels.ts";
import { installLingeringClose } from "@svc/process/lingering-close";
import { createSidecarServer, DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts, type ServerParts } from "./server.ts";
import { part, startGroups, type Part, type Runnable } from "@svc/process";
import { newStats, type SidecarStats } from "./stats.ts";
import { ChangeStream } from "./stream.ts";
import { runWatchLoop } from "./watch.ts";

export { configFromEnv, type SidecarConfig } from "./config.ts";
export type { SidecarFlag } from "./sidecar-flag.ts";

export interface SidecarOptions extends SidecarConfig {
  /** Overrides KUBECONFIG / in-cluster discovery. */
  connection?: KubeConnection;
  log?: Logger;
  backoff?: BackoffPolicy;
  /** Unsent bytes a stream subscriber may accumulate before it is disconnected. */
  maxStreamBacklogBytes?: number;
  /** Overrides DEFAULT_HTTP_TIMEOUTS (docs/sidecar.md), e.g. to test slow clients quickly. */
  httpTimeouts?: Partial<HttpTimeouts>;
}

/** How long requests in flight at shutdown may take before their connections are cut. */
const SHUTDOWN_GRACE_MS = 2_000;
/** How often shutdown closes the connections that became idle (a response just finished). */
const SHUTDOWN_SWEEP_MS = 50;

export interface RunningSidecar {
  /** http://host:port of the listening server. */
  url: string;
  port: number;
  /** Resolves after the first successful list (when /healthz turns 200). */
  ready: Promise<void>;
  stats: SidecarStats;
  /** Stops accepting connections, ends the streams, closes the watch. */
  close: () => Promise<void>;
}

/** The flags in memory and their change stream. */
function flagsInMemory(
  options: SidecarOptions,
  log: Logger,
  stats: SidecarStats,
  podLabels: Record<string, string> | undefined,
) {
  // A rule over a cost bound (applied with kubectl) is never evaluated: say so once per reason.
  const refused: RefusedRules = (flag, reason, keptLastGood) => {
    const kept = keptLastGood ? "; serving its last good definition" : "";
    log.warn({ flag, reason }, `flag rules refused${kept}`);
  };
  const state = new FlagState(COMPILED_RULES, podLabels, refused);
  const stream = new ChangeStream({
    state,
    stats,
    boot: randomBytes(4).toString("hex"),
    heartbeatMs: options.heartbeatMs,
    ...(options.maxStreamBacklogBytes !== undefined && { maxBacklogBytes: options.maxStreamBacklogBytes }),
  });
  return { state, stream };
}

/**
 * The HTTP server; its value is the port it listens on. On close it stops accepting, ends the
 * streams (clients reconnect elsewhere) and closes each connection a finished response leaves
 * idle; whatever is still busy after the grace period (a half-sent request, a client slow to
 * read) is cut.
 */
function httpPart(
  options: SidecarOptions,
  parts: Pick<ServerParts, "state" | "stream" | "stats">,
): Part<number> {
  let registry: Promise<Registry> | undefined;
  const { server } = createSidecarServer({
    ...parts,
    namespace: options.namespace,
    metrics: () =>
      (registry ??= createRegistry({
        stats: parts.stats,
        flags: () => parts.state.size,
        subscribers: () => parts.stream.subscribers,
      })),
    timeouts: { ...DEFAULT_HTTP_TIMEOUTS, ...options.httpTimeouts },
    remoteReads: options.remoteReads,
  });
  installLingeringClose(server);
  return part(
    "HTTP server",
    async () => {
      server.listen(options.port, options.host);
      await once(server, "listening");
      return (server.address() as AddressInfo).port;
    },
    async () => {
      const closed = once(server, "close");
      server.close();
      parts.stream.close();
      const sweep = setInterval(() => {
        server.closeIdleConnections();
      }, SHUTDOWN_SWEEP_MS);
      const cut = setTimeout(() => {
        server.closeAllConnections();
      }, SHUTDOWN_GRACE_MS);
      await closed;
      clearInterval(sweep);
      clearTimeout(cut);
    },
  );
}

/** The watch of the namespace's FeatureFlags, feeding the flags and the stream; `synced` at the first list. */
function watchPart(
  options: SidecarOptions,
  connection: KubeConnection,
  log: Logger,
  { state, stream, stats }: Pick<ServerParts, "state" | "stream" | "stats">,
  synced: () => void,
): Runnable {
  const client = new FeatureFlagClient(connection, options.namespace);
  const stopWatching = new AbortController();
  let watching: Promise<void> | undefined;
  return {
    name: "FeatureFlag watch",
    start: () => {
      watching = runWatchLoop(
        {
          client,
          state,
          log,
          ...(options.backoff && { backoff: options.backoff }),
          onChanges: (changes: FlagChange[]) => {
            stats.flagChanges += changes.length;
            stats.lastSyncSeconds = Date.now() / 1000;
            stream.publish(changes);
          },
          onSynced: () => {
            stats.ready = true;
            stats.lastSyncSeconds = Date.now() / 1000;
            synced();
          },
          onConnection: (connected) => {
            if (!connected) stats.watchFailures++;
            stats.kubernetesConnected = connected;
          },
        },
        stopWatching.signal,
      );
      return Promise.resolve();
    },
    close: async () => {
      stopWatching.abort();
      await watching;
      client.close();
    },
  };
}

export async function runSidecar(options: SidecarOptions): Promise<RunningSidecar> {
  const log = options.log ?? pino({ level: options.logLevel, base: { component: "sidecar" } });
  const connection =
    options.connection ??
    (options.kubeconfigPath === undefined
      ? inClusterConnection(process.env)
      : await loadKubeconfig(options.kubeconfigPath));
  const stats = newStats();
  const podLabels =
    options.podLabelsPath === undefined ? undefined : await readPodLabels(options.podLabelsPath);
  const flags = { ...flagsInMemory(options, log, stats, podLabels), stats };
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const http = httpPart(options, flags);
  // One group: on close the server drains while the watch stops.
  const running = startGroups([[http, watchPart(options, connection, log, flags, markReady)]]);
  await running.ready;
  const port = http.value;
  log.info({ port, namespace: options.namespace, server: connection.server }, "sidecar listening");
  return {
    url: `http://${options.host === "0.0.0.0" ? "127.0.0.1" : options.host}:${port}`,
    port,
    ready,
    stats,
    close: async () => {
      await running.close();
      log.info("sidecar stopped");
    },
  };
}
