/**
 * Failed-login throttling (docs/api.md "Logging in"). Failures count per username AND source
 * address together, so that a stranger's guesses for `admin` lock out only the stranger's own
 * address; bounds per username, per source and overall (much higher) keep a guess spread over
 * many addresses or usernames bounded too. Past those shared bounds only "familiar" sources
 * still get through: an address that logged in as that user before (Entra ID's smart lockout
 * and Okta's unknown-device lockout do the same), and loopback (`kubectl port-forward`, the
 * break-glass way in).
 */

/** DESIGN.md §4: 10 failed logins within 15 minutes → 429 with Retry-After (per username and source). */
export const LOGIN_FAILURE_LIMIT = 10;
export const LOGIN_FAILURE_WINDOW_MS = 15 * 60 * 1000;

export interface SharedLimits {
  /** Failures for one username from all sources, per window. */
  username: number;
  /** Failures from one source for all usernames, per window (password spraying). */
  source: number;
  /** Failures of everyone, per window: bounds a guess from many addresses for many usernames. */
  all: number;
}

export const SHARED_LIMITS: SharedLimits = { username: 100, source: 100, all: 1000 };

/** Bounds the memory an attacker can fill with random usernames and addresses. */
export const TRACKED_MAX = 100_000;
/** How long, and for how many (username, source) pairs, a successful login is remembered. */
export const FAMILIAR_MS = 30 * 24 * 60 * 60 * 1000;
export const FAMILIAR_MAX = 10_000;

export type ThrottleBound = "pair" | "username" | "source" | "all";

export type ThrottleDecision =
  { allowed: true } | { allowed: false; retryAfterSeconds: number; bound: ThrottleBound };

/** The failures (times, oldest first) that still count at `now`. */
export function recentFailures(failures: readonly number[], now: number): number[] {
  return failures.filter((at) => now - at < LOGIN_FAILURE_WINDOW_MS);
}

/**
 * Whether a (username, source) pair may try a password: refused while the sliding window holds
 * the limit of its failures, until the oldest of them leaves the window.
 */
export function throttleDecision(failures: readonly number[], now: number): ThrottleDecision {
  const recent = recentFailures(failures, now);
  if (recent.length < LOGIN_FAILURE_LIMIT) return { allowed: true };
  const oldestCounted = recent[recent.length - LOGIN_FAILURE_LIMIT] ?? now;
  const waitMs = oldestCounted + LOGIN_FAILURE_WINDOW_MS - now;
  return { allowed: false, retryAfterSeconds: seconds(waitMs), bound: "pair" };
}

/** A count in a fixed window: the shared bounds need no list of times, only a number. */
export interface WindowCount {
  start: number;
  count: number;
}

export function windowStart(now: number): number {
  return Math.floor(now / LOGIN_FAILURE_WINDOW_MS) * LOGIN_FAILURE_WINDOW_MS;
}

export function countAt(counter: WindowCount | undefined, now: number): number {
  return counter?.start === windowStart(now) ? counter.count : 0;
}

export interface AttemptState {
  pairFailures: readonly number[];
  usernameFailures: number;
  sourceFailures: number;
  allFailures: number;
  /** The source logged in as this user before, or is loopback: the shared bounds do not apply. */
  familiar: boolean;
}

/** The login decision: the pair's own bound always; the shared ones for unfamiliar sources. */
export function loginDecision(
  state: AttemptState,
  now: number,
  limits: SharedLimits = SHARED_LIMITS,
): ThrottleDecision {
  const pair = throttleDecision(state.pairFailures, now);
  if (!pair.allowed || state.familiar) return pair;
  const retryAfterSeconds = seconds(windowStart(now) + LOGIN_FAILURE_WINDOW_MS - now);
  const over: [ThrottleBound, boolean][] = [
    ["username", state.usernameFailures >= limits.username],
    ["source", state.sourceFailures >= limits.source],
    ["all", state.allFailures >= limits.all],
  ];
  const bound = over.find(([, reached]) => reached)?.[0];
  return bound === undefined ? { allowed: true } : { allowed: false, retryAfterSeconds, bound };
}

/** What a refused attempt is told: never whether the username exists. */
export function throttleMessage(bound: ThrottleBound): string {
  return bound === "pair"
    ? "too many failed logins for this user from your address: try again later"
    : "too many failed logins: try again later";
}

/** Loopback addresses (IPv4, IPv6 and IPv4-mapped): a port-forward or a proxy on the same host. */
export function isLoopback(address: string): boolean {
  return /^(?:::ffff:)?127\.\d+\.\d+\.\d+$/i.test(address) || address === "::1";
}

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * Map insertion order as recency: a touched key moves to the end; at the cap the oldest goes (in
 * constant time: the periodic sweep removes what expired).
 */
function touch<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  if (map.size >= max) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
  map.set(key, value);
}

/** Failed-login memory (in memory: per API server replica, like the sessions). */
export class LoginThrottle {
  readonly #pairs = new Map<string, number[]>();
  readonly #usernames = new Map<string, WindowCount>();
  readonly #sources = new Map<string, WindowCount>();
  #all: WindowCount = { start: 0, count: 0 };
  readonly #familiar = new Map<string, number>();
  readonly #now: () => number;
  readonly #limits: SharedLimits;

  constructor(now: () => number, limits: SharedLimits = SHARED_LIMITS) {
    this.#now = now;
    this.#limits = limits;
  }

  /**
   * Whether `username` may try a password from `source` now; when it may, the attempt counts as
   * a failure at once, until `recordSuccess`. Counting before the slow password check is what
   * makes the limits hold for attempts made at the same time: each sees the ones before it.
   */
  attempt(username: string, source: string): ThrottleDecision {
    const now = this.#now();
    const pairKey = `${source}\n${username}`;
    const seen = this.#familiar.get(pairKey);
    const decision = loginDecision(
      {
        pairFailures: this.#pairs.get(pairKey) ?? [],
        usernameFailures: countAt(this.#usernames.get(username), now),
        sourceFailures: countAt(this.#sources.get(source), now),
        allFailures: countAt(this.#all, now),
        familiar: isLoopback(source) || (seen !== undefined && now - seen < FAMILIAR_MS),
      },
      now,
      this.#limits,
    );
    if (!decision.allowed) return decision;
    const kept = recentFailures(this.#pairs.get(pairKey) ?? [], now).slice(-LOGIN_FAILURE_LIMIT + 1);
    touch(this.#pairs, pairKey, [...kept, now], TRACKED_MAX);
    this.#count(this.#usernames, username, now, 1);
    this.#count(this.#sources, source, now, 1);
    this.#all = { start: windowStart(now), count: countAt(this.#all, now) + 1 };
    return decision;
  }

  /** The attempt was right: its failure is taken back, and the source becomes familiar. */
  recordSuccess(username: string, source: string): void {
    const now = this.#now();
    const pairKey = `${source}\n${username}`;
    this.#pairs.delete(pairKey);
    this.#count(this.#usernames, username, now, -1);
    this.#count(this.#sources, source, now, -1);
    this.#all = { start: windowStart(now), count: Math.max(0, countAt(this.#all, now) - 1) };
    touch(this.#familiar, pairKey, now, FAMILIAR_MAX);
  }

  #count(map: Map<string, WindowCount>, key: string, now: number, delta: number): void {
    const count = Math.max(0, countAt(map.get(key), now) + delta);
    if (count === 0) map.delete(key);
    else touch(map, key, { start: windowStart(now), count }, TRACKED_MAX);
  }

  sweep(): void {
    const now = this.#now();
    for (const [key, failures] of this.#pairs) {
      if (recentFailures(failures, now).length === 0) this.#pairs.delete(key);
    }
    for (const map of [this.#usernames, this.#sources]) {
      for (const [key, counter] of map) if (countAt(counter, now) === 0) map.delete(key);
    }
    for (const [key, at] of this.#familiar) if (now - at >= FAMILIAR_MS) this.#familiar.delete(key);
  }

  /** Entries held, for tests of the memory bound. */
  get size(): number {
    return this.#pairs.size + this.#usernames.size + this.#sources.size + this.#familiar.size;
  }
}
