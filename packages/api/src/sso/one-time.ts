import { randomBytes } from "node:crypto";
import { tokenKey } from "../auth/sessions.ts";

export interface OneTimeLimits {
  ttlMs: number;
  /** Entries kept at most: a flood of sign-ins started and never finished pushes out the oldest. */
  max: number;
}

/**
 * Values handed out under a random key that can be taken once, until they expire: a sign-in's
 * state (verifier, nonce) between the redirect to the provider and its callback, and a finished
 * sign-in's session between the callback and the dashboard picking it up. In memory, like the
 * sessions (a sign-in finishes on the replica that started it), keyed by a hash of the key.
 */
export class OneTimeStore<T> {
  readonly #entries = new Map<string, { value: T; expiresAt: number }>();
  readonly #limits: OneTimeLimits;
  readonly #now: () => number;

  constructor(limits: OneTimeLimits, now: () => number) {
    this.#limits = limits;
    this.#now = now;
  }

  /** Keeps `value` under `key` (by default 32 random bytes, base64url); returns the key. */
  put(value: T, key = randomBytes(32).toString("base64url")): string {
    if (this.#entries.size >= this.#limits.max) this.sweep();
    if (this.#entries.size >= this.#limits.max) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(tokenKey(key), { value, expiresAt: this.#now() + this.#limits.ttlMs });
    return key;
  }

  /** The value, removed: a second take of the same key, or one after expiry, finds nothing. */
  take(key: string): T | undefined {
    const hashed = tokenKey(key);
    const entry = this.#entries.get(hashed);
    this.#entries.delete(hashed);
    return entry !== undefined && this.#now() < entry.expiresAt ? entry.value : undefined;
  }

  sweep(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries) if (now >= entry.expiresAt) this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
