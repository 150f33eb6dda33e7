// What the list+watch loop does after a watch ended or a call failed: client-go's reflector
// rules, as a pure function (the random number is passed in).
import { backoffDelay, type BackoffPolicy } from "../backoff.ts";
import type { Failure } from "./health.ts";

/** How the last list or watch ended. */
export type Ending =
  /** The server ended the watch (its timeoutSeconds, or a shutdown). */
  | { kind: "closed"; durationMs: number }
  /** The watchdog ended a watch that stayed silent for too long. */
  | { kind: "silent" }
  | { kind: "failed"; failure: Failure };

export interface Restart {
  /** Forget the resourceVersion and list again (otherwise: repeat what ended, from where it was). */
  listAgain: boolean;
  delayMs: number;
  /** Failures in a row, for the next back-off. */
  attempt: number;
}

/** A watch the server ends sooner than this counts as failed: otherwise a busy loop. */
export const MIN_HEALTHY_WATCH_MS = 1000;

/**
 * - 410 Gone: list again at once.
 * - any other failure: retry after the back-off, keeping the cache and the resourceVersion.
 * - a watch ended normally after a healthy while: watch on at once, back-off reset.
 * - a watch ended at once: back off (an API server shutting down closes watches as they open).
 * - a silent watch: watch on at once from the last resourceVersion.
 */
export function restartAfter(
  ending: Ending,
  attempt: number,
  policy: BackoffPolicy,
  random: number,
): Restart {
  const backOff = { listAgain: false, delayMs: backoffDelay(policy, attempt, random), attempt: attempt + 1 };
  switch (ending.kind) {
    case "silent":
      return { listAgain: false, delayMs: 0, attempt };
    case "closed":
      return ending.durationMs >= MIN_HEALTHY_WATCH_MS
        ? { listAgain: false, delayMs: 0, attempt: 0 }
        : backOff;
    case "failed":
      return ending.failure.kind === "gone" ? { listAgain: true, delayMs: 0, attempt } : backOff;
  }
}
