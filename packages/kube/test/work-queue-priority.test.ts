// Priorities (controller-runtime's priority queue): what a change queues goes before what a
// start-up or resync queued for everything, so a new flag is not delivered after a whole cluster.
import { describe, expect, it } from "vitest";
import { WorkQueue, type ReconcileResult } from "../src/work-queue.ts";

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One worker, each reconcile held until the test releases it, in the order they ran. */
function heldQueue() {
  const started: string[] = [];
  const held: (() => void)[] = [];
  const queue = new WorkQueue({
    concurrency: 1,
    reconcile: async (key): Promise<ReconcileResult | undefined> => {
      started.push(key);
      await new Promise<void>((resolve) => held.push(resolve));
      return undefined;
    },
  });
  const releaseAll = async () => {
    for (let i = 0; i < 1000 && (held.length > 0 || queue.depth > 0); i++) {
      held.shift()?.();
      await flush();
    }
  };
  return { queue, started, releaseAll };
}

describe("WorkQueue priorities", () => {
  it("runs a key added at normal priority before every key waiting at low priority", async () => {
    const { queue, started, releaseAll } = heldQueue();
    for (let i = 0; i < 5; i++) queue.add(`resync-${i}`, "low");
    queue.add("changed");
    await releaseAll();
    expect(started).toEqual(["resync-0", "changed", "resync-1", "resync-2", "resync-3", "resync-4"]);
    await queue.whenIdle();
  });

  it("moves a key waiting at low priority up when it is added again at normal, and keeps one copy", async () => {
    const { queue, started, releaseAll } = heldQueue();
    for (let i = 0; i < 4; i++) queue.add(`k-${i}`, "low");
    queue.add("k-3");
    queue.add("k-2", "low");
    expect(queue.depth).toBe(3);
    await releaseAll();
    expect(started).toEqual(["k-0", "k-3", "k-1", "k-2"]);
  });

  it("queues a key added while in flight with the highest priority it was added at", async () => {
    const { queue, started, releaseAll } = heldQueue();
    queue.add("busy", "low");
    await flush();
    queue.add("other", "low");
    queue.add("busy", "low");
    queue.add("busy");
    await releaseAll();
    expect(started).toEqual(["busy", "busy", "other"]);
  });

  it("keeps FIFO order within a priority, and the low priority of a delayed add", async () => {
    const { queue, started, releaseAll } = heldQueue();
    queue.add("first");
    queue.add("low-a", "low");
    queue.addAfter("low-b", 0, "low");
    queue.add("second");
    await releaseAll();
    expect(started).toEqual(["first", "second", "low-a", "low-b"]);
  });
});
