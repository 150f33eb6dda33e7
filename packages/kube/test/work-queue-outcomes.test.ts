// How a reconcile ends besides success and a retried failure: a TerminalError is not retried,
// and shutDown aborts the signal of the reconciles in flight.
import { describe, expect, it } from "vitest";
import { TerminalError, WorkQueue, type ReconcileOutcome } from "../src/work-queue.ts";
import { manualClock } from "./support/manual-clock.ts";

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("WorkQueue outcomes", () => {
  it("does not retry a TerminalError, tells of it once, and runs the key again when it is added", async () => {
    const clock = manualClock();
    const attempts: string[] = [];
    const outcomes: ReconcileOutcome[] = [];
    const terminal: string[] = [];
    const retried: string[] = [];
    const queue = new WorkQueue({
      concurrency: 1,
      clock,
      reconcile: (key) => {
        attempts.push(key);
        return Promise.reject(new TerminalError("422 Invalid"));
      },
      onTerminal: (key, error) => terminal.push(`${key}: ${error.message}`),
      onError: (key) => retried.push(key),
      onDone: (_key, outcome) => outcomes.push(outcome),
    });
    queue.add("web");
    await flush();
    clock.advance(600_000);
    await queue.whenIdle();
    expect(attempts).toEqual(["web"]);
    expect(outcomes).toEqual(["terminal"]);
    expect(terminal).toEqual(["web: 422 Invalid"]);
    expect(retried).toEqual([]);
    expect(queue.delayed).toBe(0);
    // The next change of what the key reads queues it again.
    queue.add("web");
    await queue.whenIdle();
    expect(attempts).toEqual(["web", "web"]);
  });

  it("aborts the signal of the reconciles in flight on shutDown, without retrying or reporting them as errors", async () => {
    const outcomes: ReconcileOutcome[] = [];
    const errors: unknown[] = [];
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const queue = new WorkQueue({
      concurrency: 2,
      // A write that only ends when its signal does.
      reconcile: (_key, signal) =>
        new Promise((_resolve, reject) => {
          started();
          signal.addEventListener("abort", () => {
            reject(signal.reason as Error);
          });
        }),
      onError: (_key, error) => errors.push(error),
      onDone: (_key, outcome) => outcomes.push(outcome),
    });
    queue.add("web");
    await running;
    await queue.shutDown();
    expect(outcomes).toEqual(["canceled"]);
    expect(errors).toEqual([]);
  });
});
