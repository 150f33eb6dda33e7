// The watch loop's decisions, pure: when to retry the Kubernetes API and what to list or watch
// from after which failure. Thousands of sidecars watch the same kube-apiserver, so every wait is
// drawn at random (full jitter: pods that failed together do not retry together) and every list
// is one the API server answers from its watch cache, as client-go's reflector lists.
import { backoffDelay as cappedDelay, type BackoffPolicy as JitteredPolicy } from "@svc/core/backoff";

/** Exponential and capped; the whole delay is drawn at random, so no ±jitter to choose. */
export type BackoffPolicy = Omit<JitteredPolicy, "jitter">;

/**
 * 1 s doubling to 15 s. A first retry of up to 1 s (not 250 ms): when a kube-apiserver drops every
 * watch at once, its sidecars' reconnects spread over a second; the watch resumes from its last
 * resourceVersion, so the cost is at most a second of delay on a flag change.
 */
export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 1000, maxMs: 15_000, factor: 2 };

/**
 * The first list after start waits up to this long: when every pod of a fleet restarts at once
 * (a node pool upgrade, a rollout of the operator's injection), the lists do not all arrive in
 * the same instant. Short, because the sidecar's readiness (and so the pod's) waits on that list.
 */
export const DEFAULT_START_JITTER_MS = 500;

/**
 * "Full jitter" (AWS Architecture Blog, "Exponential Backoff And Jitter"): uniformly between 0 and
 * the capped exponential delay for retry number `attempt` (0 for the first). `random` is in [0, 1).
 */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random: number): number {
  return Math.floor(random * cappedDelay({ ...policy, jitter: 0 }, attempt, 0));
}

/** The wait before the first list after start: uniformly 0..`maxMs`. */
export function startDelay(maxMs: number, random: number): number {
  return Math.floor(random * maxMs);
}

/** Where the loop stands with respect to the API server's history of FeatureFlags. */
export interface SyncPosition {
  /** The newest resourceVersion seen (list, event or bookmark); undefined before the first list. */
  resourceVersion: string | undefined;
  /** A watch from `resourceVersion` cannot resume (410 Gone): list before watching again. */
  mustList: boolean;
  /** The API server refused a list from `resourceVersion`: the next list reads the latest state. */
  listFromVersionRefused: boolean;
}

export const START_POSITION: SyncPosition = {
  resourceVersion: undefined,
  mustList: true,
  listFromVersionRefused: false,
};

/** The resourceVersion parameters of a list, and whether it is paged (`limit`). */
export interface ListQuery {
  resourceVersion?: string;
  resourceVersionMatch?: "NotOlderThan";
  paged: boolean;
}

/**
 * What to list from, as client-go's reflector (`relistResourceVersion`) decides:
 * - first list: `resourceVersion=0`, any state the watch cache has (a moment behind at most; the
 *   watch from the list's resourceVersion catches up);
 * - a relist: the last resourceVersion seen, `NotOlderThan`: still from the watch cache, and
 *   never older than what the sidecar already serves, so its flags never go back in time. Not
 *   paged: an API server without pagination from its cache (KEP-4988) sends those to etcd;
 * - after the API server refused that (410 Gone, or 504 when its cache lags the version), the
 *   latest state, paged (a consistent read).
 */
export function listQuery(position: SyncPosition): ListQuery {
  if (position.resourceVersion === undefined) return { resourceVersion: "0", paged: true };
  if (position.listFromVersionRefused) return { paged: true };
  return { resourceVersion: position.resourceVersion, resourceVersionMatch: "NotOlderThan", paged: false };
}

/** The position after a successful list. */
export function listed(resourceVersion: string): SyncPosition {
  return { resourceVersion, mustList: false, listFromVersionRefused: false };
}

/** What the loop does after a list or watch failed: from where, and after how long. */
export interface NextStep {
  position: SyncPosition;
  delayMs: number;
}

/**
 * - a watch ended by 410 Gone (its resourceVersion left the API server's history): list again,
 *   from the last resourceVersion seen;
 * - a list from a version refused with 410 or 504: list again, the latest state;
 * - anything else (API unreachable, a dropped connection, 5xx, 429, 401/403, a silent watch):
 *   keep the position, so a reconnect watches on from the last resourceVersion (bookmarks keep it
 *   recent) instead of listing everything again.
 * Every case waits a full-jitter back-off first; the flags already known keep being served.
 */
export function afterFailure(
  position: SyncPosition,
  failed: "list" | "watch",
  status: number | undefined,
  policy: BackoffPolicy,
  attempt: number,
  random: number,
): NextStep {
  const delayMs = backoffDelay(policy, attempt, random);
  if (failed === "watch" && status === 410) return { position: { ...position, mustList: true }, delayMs };
  if (failed === "list" && position.resourceVersion !== undefined && (status === 410 || status === 504)) {
    return { position: { ...position, listFromVersionRefused: true }, delayMs };
  }
  return { position, delayMs };
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
