// The list-then-watch loop that keeps the FlagState equal to the namespace's FeatureFlags.
// It never gives up: on failure the state keeps serving what it has, and the loop retries with
// back-off; a 410 Gone relists. Decisions are in backoff.ts; this is the shell that runs them.
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import { DEFAULT_BACKOFF, delayAfterWatchEnded, nextStep, type BackoffPolicy } from "./backoff.ts";
import type { FlagChange, FlagState } from "./flags.ts";
import { KubeApiError, type FeatureFlagClient } from "./kube-client.ts";

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
  /** Server-side watch timeout; randomised ±10 % so many sidecars do not rewatch in step. */
  watchTimeoutSeconds?: number;
  silenceMs?: number;
}

/** Runs until `signal` aborts. */
export async function runWatchLoop(options: WatchLoopOptions, signal: AbortSignal): Promise<void> {
  const { client, state, log } = options;
  const policy = options.backoff ?? DEFAULT_BACKOFF;
  const timeoutSeconds = options.watchTimeoutSeconds ?? 300;
  // Bookmarks arrive about once a minute; two minutes of silence past the timeout means a dead link.
  const silenceMs = options.silenceMs ?? (timeoutSeconds + 120) * 1000;
  let resourceVersion: string | undefined;
  let listedOnce = false;
  let failures = 0;
  while (!signal.aborted) {
    try {
      if (resourceVersion === undefined) {
        const list = await client.list(signal, !listedOnce);
        listedOnce = true;
        options.onChanges(state.replace(list.items));
        resourceVersion = list.resourceVersion;
        failures = 0;
        options.onConnection(true);
        options.onSynced();
        log.info({ flags: state.size, resourceVersion }, "listed FeatureFlags");
      }
      const watchStarted = Date.now();
      await client.watch({
        resourceVersion,
        signal,
        timeoutSeconds: Math.round(timeoutSeconds * (0.9 + 0.2 * Math.random())),
        silenceMs,
        onOpen: () => {
          failures = 0;
          options.onConnection(true);
        },
        onEvent: (event) => {
          const version = event.object.metadata?.resourceVersion;
          if (version !== undefined) resourceVersion = version;
          if (event.type !== "BOOKMARK") options.onChanges(state.apply(event.type, event.object));
        },
      });
      // The server ended the watch (its timeout): continue from the last resourceVersion.
      const delayMs = delayAfterWatchEnded(Date.now() - watchStarted, policy, failures, Math.random());
      if (delayMs > 0) {
        failures++;
        await sleep(delayMs, undefined, { signal }).catch(() => undefined);
      }
    } catch (error) {
      if (isAborted(signal)) return;
      const status = error instanceof KubeApiError ? error.status : undefined;
      const step = nextStep(status, policy, failures, Math.random());
      if (step.action === "relist") {
        log.info({ resourceVersion }, "resourceVersion expired (410): listing again");
        resourceVersion = undefined;
        continue;
      }
      failures++;
      options.onConnection(false);
      log.warn(
        {
          err: error instanceof Error ? error.message : String(error),
          retryInMs: step.delayMs,
          flags: state.size,
        },
        "Kubernetes API unavailable: serving the last known flags",
      );
      await sleep(step.delayMs, undefined, { signal }).catch(() => undefined);
    }
  }
}

// A function, not `signal.aborted` inline: the loop condition narrows that to false for the checker.
function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}
