// When to retry a cluster after a failure: exponential back-off with jitter (so the watches of
// many clusters and kinds do not retry in step after an outage), capped. Pure: the random
// number is passed in. Imports nothing, and is exported alone as `@svc/kube/backoff` so that
// processes which must stay small (the sidecar) can use it without loading client-node.

export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  factor: number;
  /** Fraction of the delay added or removed at random: 0.2 means ±20 %. */
  jitter: number;
}

/** client-go's reflector backs off from 800 ms to 30 s; the first retry here comes a little sooner. */
export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 30_000, factor: 2, jitter: 0.2 };

/** The delay before retry number `attempt` (0 for the first retry); `random` is in [0, 1). */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random: number): number {
  const base = Math.min(policy.maxMs, policy.initialMs * policy.factor ** Math.min(attempt, 64));
  const withJitter = base * (1 + policy.jitter * (2 * random - 1));
  return Math.round(Math.min(policy.maxMs, Math.max(0, withJitter)));
}
