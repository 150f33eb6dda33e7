// When to retry after a failure: exponential back-off with jitter (so the watches of many pods,
// clusters and kinds do not retry in step after an outage), capped. Pure: the random number is
// passed in. Imports nothing, and is exported alone as `@svc/core/backoff` so that processes
// which must start fast and stay small (the sidecar) load nothing else with it. Each user keeps
// its own policy.

export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  factor: number;
  /** Fraction of the delay added or removed at random: 0.2 means ±20 %. */
  jitter: number;
}

/** The delay before retry number `attempt` (0 for the first retry); `random` is in [0, 1). */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random: number): number {
  const base = Math.min(policy.maxMs, policy.initialMs * policy.factor ** Math.min(attempt, 64));
  const withJitter = base * (1 + policy.jitter * (2 * random - 1));
  return Math.round(Math.min(policy.maxMs, Math.max(0, withJitter)));
}
