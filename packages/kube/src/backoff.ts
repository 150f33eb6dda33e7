// The registry's retry policy; the back-off itself is core's.
import type { BackoffPolicy } from "@svc/core/backoff";

export { backoffDelay, type BackoffPolicy } from "@svc/core/backoff";

/** client-go's reflector backs off from 800 ms to 30 s; the first retry here comes a little sooner. */
export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 30_000, factor: 2, jitter: 0.2 };
