// What the work queue reports for its latency metrics, on its injected clock: how long each key
// waited from its add to its start, and how long its reconcile ran.
import { describe, expect, it } from "vitest";
import { WorkQueue } from "../src/work-queue.ts";
import { manualClock } from "./support/manual-clock.ts";

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("WorkQueue timings", () => {
  it("reports each key's wait from add to start and its reconcile's duration", async () => {
    const clock = manualClock();
    const gates = new Map<string, () => void>();
    const events: string[] = [];
    const queue = new WorkQueue({
      concurrency: 1,
      clock,
      reconcile: (key) =>
        new Promise((resolve) => {
          gates.set(key, () => {
            resolve(undefined);
          });
        }),
      onAdd: (key) => events.push(`add ${key}`),
      onStart: (key, queuedMs) => events.push(`start ${key} after ${queuedMs}`),
      onDone: (key, outcome, workMs) => events.push(`${outcome} ${key} in ${workMs}`),
    });
    queue.add("a");
    queue.add("b");
    queue.add("b"); // already waiting: no second add
    await flush();
    clock.advance(30);
    queue.add("a"); // changed while in flight: waits from now until it runs again
    clock.advance(20);
    gates.get("a")?.();
    await flush();
    clock.advance(5);
    gates.get("b")?.();
    await flush();
    gates.get("a")?.();
    await queue.whenIdle();
    expect(events).toEqual([
      "add a",
      "start a after 0",
      "add b",
      "add a",
      "success a in 50",
      "start b after 50",
      "success b in 5",
      "start a after 25",
      "success a in 0",
    ]);
  });

  it("reports a delayed key's wait from when its delay ends", async () => {
    const clock = manualClock();
    const waits: number[] = [];
    const queue = new WorkQueue({
      concurrency: 1,
      clock,
      reconcile: () => Promise.resolve(undefined),
      onStart: (_key, queuedMs) => waits.push(queuedMs),
    });
    queue.addAfter("a", 1000);
    clock.advance(1000);
    await queue.whenIdle();
    expect(waits).toEqual([0]);
  });
});
