// `svc operator`: delivers FeatureFlags to the workloads of every registered cluster and keeps
// the flags' status. runOperator starts its parts (operator-parts.ts) in groups and owns the
// lifecycle (lifecycle.ts): the metrics server and the hub's writer, then leader election (or,
// with sharding, the cluster Leases); once this replica leads, the parts that act.
import { closing, startGroups, StartAborted, type StartedGroups } from "@svc/process";
import { runLeaderElection } from "./leader-election.ts";
import { actingGroups, OperatorParts, type OperatorOptions } from "./operator-parts.ts";

export { DEFAULT_SIDECAR_IMAGE, parseOperatorConfig, type OperatorConfig } from "./config.ts";
export { DELIVERY_FINALIZER } from "@svc/core";
export type { OperatorOptions } from "./operator-parts.ts";

export interface RunningOperator {
  /** http://host:port of /metrics, /healthz and /readyz. */
  metricsUrl: string;
  /** Resolves once this replica leads (sharding: its first round; free clusters follow once it has seen the others) and every cluster's keys are queued. */
  ready: Promise<void>;
  /** Resolves when nothing is queued, in flight or waiting for a retry, and no cluster status is being written (tests, benchmarks). */
  idle: () => Promise<void>;
  /** Writes sent to API servers since start (applies, creates, deletes). */
  writes: () => number;
  /** Resolves when the operator stopped on its own (leadership lost). */
  stopped: Promise<void>;
  close: () => Promise<void>;
}

/** Leader election, or with sharding none (every replica acts: the cluster Leases decide where). */
function electionPart(parts: OperatorParts, lead: () => void, lost: () => void) {
  const { options, hubWriter, now, log } = parts;
  const stopping = new AbortController();
  let electing: Promise<void> | undefined;
  return {
    name: "leader election",
    start: () => {
      if (options.leaderElection && !options.sharding)
        electing = runLeaderElection({
          writer: hubWriter,
          namespace: options.systemNamespace,
          identity: options.identity,
          leaseDurationMs: options.leaseDurationMs,
          now,
          logger: log,
          signal: stopping.signal,
          onStartedLeading: lead,
          onStoppedLeading: lost,
        });
      else lead();
      return Promise.resolve();
    },
    // Hands the Lease back, once what acted under it stopped (closed before this group).
    close: async () => {
      stopping.abort();
      await electing;
    },
  };
}

export async function runOperator(options: OperatorOptions): Promise<RunningOperator> {
  const parts = new OperatorParts(options);
  const { lifecycle, log } = parts;
  let acting: StartedGroups | undefined;
  let markReady: () => void = () => undefined;
  let failReady: (error: unknown) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  let markStopped: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (markStopped = resolve));

  const lead = () => {
    lifecycle.on("elected");
    const started = startGroups(actingGroups(parts));
    acting = started;
    started.ready.then(
      () => {
        lifecycle.on("started");
        parts.rollouts.sync();
        markReady();
      },
      (error: unknown) => {
        failReady(
          error instanceof StartAborted ? new Error("the operator closed before it was ready") : error,
        );
      },
    );
  };
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      lifecycle.on("close");
      try {
        // An unfinished start-up stops at its next step; writes in flight finish before the Lease is handed back.
        await acting?.close();
      } finally {
        await base.close();
        lifecycle.on("closed");
        log.info("operator stopped");
      }
    })());
  const base = startGroups([
    [parts.metricsServer, closing("hub writer", () => parts.hubWriter.close())],
    [
      electionPart(parts, lead, () => {
        lifecycle.on("leadershipLost");
        void close().then(markStopped);
      }),
    ],
  ]);
  await base.ready;

  return {
    metricsUrl: `http://${options.metricsHost === "0.0.0.0" ? "127.0.0.1" : options.metricsHost}:${parts.metricsServer.value}`,
    ready,
    idle: async () => {
      await parts.queues.whenIdle();
      await parts.rollouts.whenIdle();
      await parts.status.current?.settled();
    },
    writes: () => parts.writes,
    stopped,
    close,
  };
}
