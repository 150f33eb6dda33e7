// How a reconcile ends besides success and a retried failure: a TerminalError is not retried,
// shutDown aborts the signal of the reconciles in flight, and pause does too but keeps their
// keys for resume.
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

  it("pauses: cancels the reconciles in flight, starts nothing until resume, then runs them and the keys added meanwhile", async () => {
    const outcomes: string[] = [];
    const errors: unknown[] = [];
    const started: string[] = [];
    let blocking = true;
    let inFlight: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (inFlight = resolve));
    const queue = new WorkQueue({
      concurrency: 2,
      // Writes that last until their signal ends while `blocking`, then succeed at once.
      reconcile: (key, signal) => {
        started.push(key);
        if (!blocking) return Promise.resolve(undefined);
        inFlight();
        return new Promise((_resolve, reject) => {
          signal.addEventListener("abort", () => {
            reject(signal.reason as Error);
          });
        });
      },
      onError: (_key, error) => errors.push(error),
      onDone: (key, outcome) => outcomes.push(`${key}: ${outcome}`),
    });
    queue.add("web");
    await running;
    await queue.pause();
    expect(outcomes).toEqual(["web: canceled"]);
    expect(queue.inFlight).toBe(0);
    // Added while paused: queued, not started.
    queue.add("api");
    await flush();
    expect(started).toEqual(["web"]);
    expect(queue.depth).toBe(2);
    blocking = false;
    queue.resume();
    await queue.whenIdle();
    expect(started.slice(1).sort()).toEqual(["api", "web"]);
    expect(outcomes.slice(1).sort()).toEqual(["api: success", "web: success"]);
    // A cancel by pause is no failure: nothing retried with back-off.
    expect(errors).toEqual([]);
    expect(queue.delayed).toBe(0);
  });
});
