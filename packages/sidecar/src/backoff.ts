// When to retry the Kubernetes API after a failure: exponential back-off with jitter (so the
// sidecars of many pods do not retry in step after an API outage), capped: the sidecar's policy
// and watch-loop decisions over core's back-off.
import { backoffDelay, type BackoffPolicy } from "@svc/core/backoff";

export { backoffDelay, type BackoffPolicy };

export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 250, maxMs: 15_000, factor: 2, jitter: 0.2 };

/** What the watch loop does after a list or watch failed. */
export type NextStep = { action: "relist" } | { action: "retry"; delayMs: number };

/**
 * - 410 Gone (the resourceVersion is older than the API server keeps, or a list's continue
 *   token expired): list again at once.
 * - anything else (API unreachable, 5xx, 429, 401/403, a silent watch): retry after a back-off,
 *   keeping the flags already known.
 * A watch the server ends normally is no failure: the loop watches on from where it was.
 */
export function nextStep(
  status: number | undefined,
  policy: BackoffPolicy,
  attempt: number,
  random: number,
): NextStep {
  return status === 410
    ? { action: "relist" }
    : { action: "retry", delayMs: backoffDelay(policy, attempt, random) };
}

/** A watch shorter than this that ended "normally" is treated as a failure (see below). */
export const MIN_HEALTHY_WATCH_MS = 1000;

/**
 * The delay before watching again after the server ended a watch. A watch normally runs for
 * minutes; one that ends at once (an API server shutting down, a proxy closing streams) would
 * otherwise turn the loop into a busy retry.
 */
export function delayAfterWatchEnded(
  durationMs: number,
  policy: BackoffPolicy,
  attempt: number,
  random: number,
): number {
  return durationMs >= MIN_HEALTHY_WATCH_MS ? 0 : backoffDelay(policy, attempt, random);
}
