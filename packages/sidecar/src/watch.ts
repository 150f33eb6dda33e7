// The list-then-watch loop that keeps the FlagState equal to the namespace's FeatureFlags.
// It never gives up: on failure the state keeps serving what it has, and the loop retries after a
// jittered back-off, watching on from the last resourceVersion it saw (a 410 Gone lists again).
// Decisions are in backoff.ts; this is the shell that runs them.
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import {
  afterFailure,
  DEFAULT_BACKOFF,
  DEFAULT_START_JITTER_MS,
  delayAfterWatchEnded,
  listed,
  listQuery,
  START_POSITION,
  startDelay,
  type BackoffPolicy,
} from "./backoff.ts";
import type { FlagChange, FlagState } from "./flags.ts";
import { KubeApiError } from "@svc/kube-wire";
import type { FeatureFlagClient } from "./kube-client.ts";

export interface WatchLoopOptions {
  client: FeatureFlagClient;
  state: FlagState;
  /** Every change, in order, as it is applied. */
  onChanges: (changes: FlagChange[]) => void;
  /** Called after each successful list (the first one makes the sidecar ready). */
  onSynced: () => void;
  /** Whether the API server is currently reachable (for metrics and logs). */
  onConnection: (connected: boolean) => void;
  log: Logger;
  backoff?: BackoffPolicy;
  /** The first list waits a random 0..startJitterMs (default DEFAULT_START_JITTER_MS). */
  startJitterMs?: number;
  /** Server-side watch timeout; randomised ±10 % so many sidecars do not rewatch in step. */
  watchTimeoutSeconds?: number;
  silenceMs?: number;
  /** Uniform in [0, 1): every random wait draws from it. */
  random?: () => number;
}

/** Runs until `signal` aborts. */
export async function runWatchLoop(options: WatchLoopOptions, signal: AbortSignal): Promise<void> {
  const { client, state, log } = options;
  const policy = options.backoff ?? DEFAULT_BACKOFF;
  const random = options.random ?? Math.random;
  const timeoutSeconds = options.watchTimeoutSeconds ?? 300;
  // Bookmarks arrive about once a minute; two minutes of silence past the timeout means a dead link.
  const silenceMs = options.silenceMs ?? (timeoutSeconds + 120) * 1000;
  let position = START_POSITION;
  let failures = 0;
  await pause(startDelay(options.startJitterMs ?? DEFAULT_START_JITTER_MS, random()), signal);
  while (!signal.aborted) {
    let stage: "list" | "watch" = "list";
    try {
      let from = position.resourceVersion;
      if (position.mustList || from === undefined) {
        const list = await client.list(signal, listQuery(position));
        options.onChanges(state.replace(list.items));
        position = listed(list.resourceVersion);
        from = list.resourceVersion;
        failures = 0;
        options.onConnection(true);
        options.onSynced();
        log.info({ flags: state.size, resourceVersion: from }, "listed FeatureFlags");
      }
      stage = "watch";
      const watchStarted = Date.now();
      await client.watch({
        resourceVersion: from,
        signal,
        timeoutSeconds: Math.round(timeoutSeconds * (0.9 + 0.2 * random())),
        silenceMs,
        onOpen: () => {
          failures = 0;
          options.onConnection(true);
        },
        onEvent: (event) => {
          const version = event.object.metadata?.resourceVersion;
          if (version !== undefined) position = { ...position, resourceVersion: version };
          if (event.type !== "BOOKMARK") options.onChanges(state.apply(event.type, event.object));
        },
      });
      // The server ended the watch (its timeout): continue from the last resourceVersion.
      const delayMs = delayAfterWatchEnded(Date.now() - watchStarted, policy, failures, random());
      if (delayMs > 0) failures++;
      await pause(delayMs, signal);
    } catch (error) {
      if (isAborted(signal)) return;
      const status = error instanceof KubeApiError ? error.status : undefined;
      const step = afterFailure(position, stage, status, policy, failures, random());
      failures++;
      position = step.position;
      if (stage === "watch" && status === 410) {
        log.info(
          { resourceVersion: position.resourceVersion, listInMs: step.delayMs },
          "watch expired (410): listing again",
        );
      } else {
        options.onConnection(false);
        log.warn(
          {
            err: error instanceof Error ? error.message : String(error),
            retryInMs: step.delayMs,
            flags: state.size,
          },
          "Kubernetes API unavailable: serving the last known flags",
        );
      }
      await pause(step.delayMs, signal);
    }
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return ms > 0 ? sleep(ms, undefined, { signal }).catch(() => undefined) : Promise.resolve();
}

// A function, not `signal.aborted` inline: the loop condition narrows that to false for the checker.
function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}
