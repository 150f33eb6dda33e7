// Waiting until a condition holds, by a deadline: the one polling loop of the code base (CRDs
// becoming established, harness processes becoming ready, tests' `eventually`).
import { setTimeout as sleep } from "node:timers/promises";

export interface WaitOptions<T> {
  /** What is awaited, for the timeout message: "the CRD featureflags.svc.io established". */
  what: string;
  timeoutMs: number;
  /** Pause between two reads. Default 100 ms. */
  intervalMs?: number;
  /** The last value in the timeout message. Default: JSON. */
  describe?: (last: T) => string;
}

/** The deadline passed; `last` is the last value read. */
export class WaitTimeoutError<T = unknown> extends Error {
  readonly last: T;
  constructor(message: string, last: T) {
    super(message);
    this.name = "WaitTimeoutError";
    this.last = last;
  }
}

/**
 * Reads until `done` holds for the value read, and returns that value; rejects with
 * WaitTimeoutError when the deadline passes first. An error thrown by `read` ends the wait at
 * once (a process that died while starting need not be waited for).
 */
export async function waitFor<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  options: WaitOptions<T>,
): Promise<T> {
  const { what, timeoutMs, intervalMs = 100, describe = (last: T) => JSON.stringify(last) } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() >= deadline)
      throw new WaitTimeoutError(
        `timed out after ${timeoutMs} ms waiting for ${what}; last value: ${describe(value)}`,
        value,
      );
    await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
}
