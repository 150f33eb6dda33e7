import { availableParallelism } from "node:os";
import { hash, verify } from "@node-rs/bcrypt";
import pLimit, { type LimitFunction } from "p-limit";
import { HttpError } from "../http/errors.ts";

/** bcrypt cost: 12 is DESIGN.md's floor (≈ 250 ms per hash on one core). */
export const BCRYPT_COST = 12;
const BCRYPT_SECONDS = 0.25;

/** Hashes on libuv's thread pool, never on the event loop. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, { cost: BCRYPT_COST });
}

/**
 * What a login of a username that does not exist is verified against, so that a wrong username
 * costs the same time as a wrong password and does not reveal which users exist. It is the hash,
 * at BCRYPT_COST, of 32 random bytes whose text was thrown away: no password matches it, and no
 * process spends a hash making one (a unit test checks both).
 */
export const DUMMY_PASSWORD_HASH = "$2b$12$xQF6EE3xi9lAsArNV3rRVe2hV9XdsRsJie2YDu9mWvCW81pZ5L0sS";

export interface HashingLimits {
  /** Hashes computed at once. */
  concurrency: number;
  /** Hashes waiting for a turn; one more is refused at once. */
  queueMax: number;
}

/**
 * One hash per core (libuv's pool has four threads in all), and a short queue: a login waits at
 * most about queueMax / concurrency × 250 ms for its turn.
 */
export const DEFAULT_HASHING_LIMITS: HashingLimits = {
  concurrency: Math.min(availableParallelism(), 4),
  queueMax: 16,
};

/**
 * The API's password hashing, bounded: a flood of logins fills the queue and the rest are
 * refused at once (503 with Retry-After), instead of every login, the flood's and the users',
 * waiting behind all the others (docs/api.md "Limits").
 */
export class PasswordHashing {
  readonly #limit: LimitFunction;
  readonly #queueMax: number;
  readonly #retryAfterSeconds: string;

  constructor(limits: HashingLimits = DEFAULT_HASHING_LIMITS) {
    this.#limit = pLimit(limits.concurrency);
    this.#queueMax = limits.queueMax;
    this.#retryAfterSeconds = String(
      Math.max(1, Math.ceil((limits.queueMax / limits.concurrency) * BCRYPT_SECONDS)),
    );
  }

  /** Throws the 503 when the queue is full. Synchronous: call it right before `run`. */
  ensureRoom(): void {
    if (this.#limit.activeCount >= this.#limit.concurrency && this.#limit.pendingCount >= this.#queueMax) {
      throw new HttpError(503, "too many passwords are being checked right now: try again shortly", {
        "retry-after": this.#retryAfterSeconds,
      });
    }
  }

  /** Runs `work` (which hashes once) in its turn; refused at once when the queue is full. */
  run<T>(work: () => Promise<T>): Promise<T> {
    this.ensureRoom();
    return this.#limit(work);
  }

  hash(password: string): Promise<string> {
    return this.run(() => hashPassword(password));
  }
}

export function verifyPassword(password: string, passwordHash: string): Promise<boolean> {
  return verify(password, passwordHash);
}
