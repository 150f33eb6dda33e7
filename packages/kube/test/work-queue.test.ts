import { describe, expect, it } from "vitest";
import { parseWorkQueueKey, WorkQueue, workQueueKey, type ReconcileResult } from "../src/work-queue.ts";
import { manualClock } from "./support/manual-clock.ts";

/** A reconcile the test releases by hand, recording what ran and how many ran at once. */
function gatedReconcile() {
  const started: string[] = [];
  const gates = new Map<string, (() => void)[]>();
  let running = 0;
  let maxRunning = 0;
  const reconcile = async (key: string): Promise<ReconcileResult | undefined> => {
    started.push(key);
    running++;
    maxRunning = Math.max(maxRunning, running);
    await new Promise<void>((resolve) => gates.set(key, [...(gates.get(key) ?? []), resolve]));
    running--;
    return undefined;
  };
  const release = async (key: string) => {
    const waiting = gates.get(key) ?? [];
    const next = waiting.shift();
    if (next === undefined) throw new Error(`${key} is not running`);
    next();
    await flush();
  };
  return { reconcile, release, started, maxRunning: () => maxRunning };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("WorkQueue", () => {
  it("keeps one copy of a key that is added again while it waits", async () => {
    const { reconcile, release, started } = gatedReconcile();
    const queue = new WorkQueue({ reconcile, concurrency: 1 });
    queue.add("a");
    queue.add("b");
    queue.add("b");
    queue.add("b");
    expect(queue.depth).toBe(1);
    await release("a");
    await release("b");
    expect(started).toEqual(["a", "b"]);
    await queue.whenIdle();
  });

  it("never runs a key twice at once, and runs it again after a change seen while in flight", async () => {
    const { reconcile, release, started, maxRunning } = gatedReconcile();
    const queue = new WorkQueue({ reconcile, concurrency: 4 });
    queue.add("a");
    await flush();
    queue.add("a");
    queue.add("a");
    await flush();
    expect(started).toEqual(["a"]);
    expect(queue.depth).toBe(0);
    await release("a");
    expect(started).toEqual(["a", "a"]);
    await release("a");
    expect(maxRunning()).toBe(1);
    await queue.whenIdle();
  });

  it("runs at most `concurrency` keys at once", async () => {
    const { reconcile, release, started, maxRunning } = gatedReconcile();
    const queue = new WorkQueue({ reconcile, concurrency: 2 });
    for (const key of ["a", "b", "c", "d", "e"]) queue.add(key);
    await flush();
    expect(started).toEqual(["a", "b"]);
    expect(queue.depth).toBe(3);
    for (const key of ["a", "b", "c", "d", "e"]) await release(key);
    expect(started).toEqual(["a", "b", "c", "d", "e"]);
    expect(maxRunning()).toBe(2);
    await queue.whenIdle();
  });

  it("retries a failing key with exponential back-off per key, and forgets it on success", async () => {
    const clock = manualClock();
    const attempts: string[] = [];
    let failuresLeft = 3;
    const delays: number[] = [];
    const queue = new WorkQueue({
      concurrency: 1,
      clock,
      retryBackoff: { initialMs: 10, maxMs: 1000, factor: 2, jitter: 0 },
      reconcile: (key) => {
        attempts.push(key);
        if (key === "bad" && failuresLeft-- > 0) return Promise.reject(new Error("conflict"));
        return Promise.resolve(undefined);
      },
      onError: (_key, _error, _retry, delayMs) => delays.push(delayMs),
    });
    queue.add("bad");
    queue.add("good");
    await flush();
    expect(attempts).toEqual(["bad", "good"]);
    clock.advance(9);
    await flush();
    expect(attempts).toHaveLength(2);
    clock.advance(1);
    await flush();
    clock.advance(20);
    await flush();
    clock.advance(40);
    await flush();
    expect(attempts).toEqual(["bad", "good", "bad", "bad", "bad"]);
    expect(delays).toEqual([10, 20, 40]);
    // Forgotten: its next failure starts from the first delay again.
    failuresLeft = 1;
    queue.add("bad");
    await flush();
    expect(delays).toEqual([10, 20, 40, 10]);
    clock.advance(10);
    await queue.whenIdle();
    expect(queue.delayed).toBe(0);
  });

  it("runs a key again after the delay its reconcile asks for; an earlier delay wins", async () => {
    const clock = manualClock();
    const attempts: number[] = [];
    const queue = new WorkQueue({
      concurrency: 1,
      clock,
      reconcile: () => {
        attempts.push(clock.now());
        return Promise.resolve(attempts.length === 1 ? { requeueAfterMs: 1000 } : undefined);
      },
    });
    queue.add("a");
    await flush();
    queue.addAfter("a", 5000);
    queue.addAfter("a", 300);
    expect(queue.delayed).toBe(1);
    clock.advance(300);
    await flush();
    expect(attempts).toEqual([0, 300]);
    clock.advance(5000);
    await flush();
    expect(attempts).toEqual([0, 300]);
    expect(clock.pending()).toBe(0);
  });

  it("shuts down after the keys in flight, dropping queued and delayed ones", async () => {
    const clock = manualClock();
    const { reconcile, release, started } = gatedReconcile();
    const queue = new WorkQueue({ reconcile, concurrency: 1, clock });
    queue.add("a");
    queue.add("b");
    queue.addAfter("c", 100);
    await flush();
    const stopped = queue.shutDown();
    queue.add("d");
    await release("a");
    await stopped;
    clock.advance(1000);
    await flush();
    expect(started).toEqual(["a"]);
  });

  it("refuses a concurrency that is not a positive integer", () => {
    expect(() => new WorkQueue({ reconcile: () => Promise.resolve(undefined), concurrency: 0 })).toThrow(
      /concurrency/,
    );
  });
});

describe("work queue keys", () => {
  it("are cluster/namespace/kind/name and read back", () => {
    const key = { cluster: "east", namespace: "shop", kind: "Deployment", name: "web" };
    expect(workQueueKey(key)).toBe("east/shop/Deployment/web");
    expect(parseWorkQueueKey(workQueueKey(key))).toEqual(key);
  });
});
