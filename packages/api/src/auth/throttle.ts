/** DESIGN.md §4: 10 failed logins for one username within 15 minutes → 429 with Retry-After. */
export const LOGIN_FAILURE_LIMIT = 10;
export const LOGIN_FAILURE_WINDOW_MS = 15 * 60 * 1000;
/** Bounds the memory an attacker can fill with failures for random usernames. */
export const TRACKED_USERNAMES_MAX = 100_000;

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** The failures (times, oldest first) that still count at `now`. */
export function recentFailures(failures: readonly number[], now: number): number[] {
  return failures.filter((at) => now - at < LOGIN_FAILURE_WINDOW_MS);
}

/**
 * Whether a login may be tried: refused while the window holds the limit of failures, until
 * the oldest of them leaves the window.
 */
export function throttleDecision(failures: readonly number[], now: number): ThrottleDecision {
  const recent = recentFailures(failures, now);
  if (recent.length < LOGIN_FAILURE_LIMIT) return { allowed: true };
  const oldestCounted = recent[recent.length - LOGIN_FAILURE_LIMIT] ?? now;
  const waitMs = oldestCounted + LOGIN_FAILURE_WINDOW_MS - now;
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}

/** Failed-login memory per username (in memory: per API server replica). */
export class LoginThrottle {
  readonly #failures = new Map<string, number[]>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /**
   * Whether `username` may try a password now; when it may, the attempt counts as a failure at
   * once, until `recordSuccess`. Counting before the slow password check is what makes the limit
   * hold for attempts made at the same time: each sees the ones before it.
   */
  attempt(username: string): ThrottleDecision {
    const now = this.#now();
    const decision = throttleDecision(this.#failures.get(username) ?? [], now);
    if (!decision.allowed) return decision;
    if (!this.#failures.has(username) && this.#failures.size >= TRACKED_USERNAMES_MAX) this.sweep();
    const kept = recentFailures(this.#failures.get(username) ?? [], now).slice(-LOGIN_FAILURE_LIMIT + 1);
    this.#failures.set(username, [...kept, now]);
    return decision;
  }

  recordSuccess(username: string): void {
    this.#failures.delete(username);
  }

  sweep(): void {
    const now = this.#now();
    for (const [username, failures] of this.#failures) {
      if (recentFailures(failures, now).length === 0) this.#failures.delete(username);
    }
  }
}
