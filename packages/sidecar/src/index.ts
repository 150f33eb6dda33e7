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
import { createSidecarServer, DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts } from "./server.ts";
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
  let registry: Promise<Registry> | undefined;
  const http = createSidecarServer({
    namespace: options.namespace,
    state,
    stream,
    stats,
    metrics: () =>
      (registry ??= createRegistry({
        stats,
        flags: () => state.size,
        subscribers: () => stream.subscribers,
      })),
    timeouts: { ...DEFAULT_HTTP_TIMEOUTS, ...options.httpTimeouts },
    remoteReads: options.remoteReads,
  });
  const server = http.server;
  installLingeringClose(server);
  server.listen(options.port, options.host);
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;

  const client = new FeatureFlagClient(connection, options.namespace);
  const stopWatching = new AbortController();
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const watching = runWatchLoop(
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
        markReady();
      },
      onConnection: (connected) => {
        if (!connected) stats.watchFailures++;
        stats.kubernetesConnected = connected;
      },
    },
    stopWatching.signal,
  );
  log.info({ port, namespace: options.namespace, server: connection.server }, "sidecar listening");

  return {
    url: `http://${options.host === "0.0.0.0" ? "127.0.0.1" : options.host}:${port}`,
    port,
    ready,
    stats,
    close: async () => {
      const closed = once(server, "close");
      // Stop accepting; node:http closes its idle connections.
      server.close();
      // Streams end (clients reconnect elsewhere); each response that finishes now leaves an idle
      // connection, closed by the sweep; whatever is still busy after the grace period (a
      // half-sent request, a client slow to read) is cut.
      stream.close();
      const sweep = setInterval(() => {
        server.closeIdleConnections();
      }, SHUTDOWN_SWEEP_MS);
      const cut = setTimeout(() => {
        server.closeAllConnections();
      }, SHUTDOWN_GRACE_MS);
      stopWatching.abort();
      await watching;
      client.close();
      await closed;
      clearInterval(sweep);
      clearTimeout(cut);
      log.info("sidecar stopped");
    },
  };
}
