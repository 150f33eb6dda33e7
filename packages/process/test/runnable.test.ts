import { describe, expect, it } from "vitest";
import { startGroups, throwIfAborted, type Runnable } from "../src/runnable.ts";

/** A part that records its start and close in `log`. */
function part(name: string, log: string[], behaviour: Partial<Runnable> = {}): Runnable {
  return {
    name,
    start: async (signal) => {
      log.push(`start ${name}`);
      await behaviour.start?.(signal);
    },
    close: async () => {
      log.push(`close ${name}`);
      await behaviour.close?.();
    },
  };
}

describe("startGroups", () => {
  it("starts the groups in order and closes them in reverse", async () => {
    const log: string[] = [];
    const running = startGroups([[part("cache", log)], [part("lease", log)], [part("controller", log)]]);
    await running.ready;
    await running.close();
    expect(log).toEqual([
      "start cache",
      "start lease",
      "start controller",
      "close controller",
      "close lease",
      "close cache",
    ]);
  });

  it("starts a group only once every part of the one before is ready", async () => {
    const log: string[] = [];
    let releaseSlow: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => (releaseSlow = resolve));
    const running = startGroups([
      [part("slow", log, { start: () => slow }), part("fast", log)],
      [part("after", log)],
    ]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(["start slow", "start fast"]);
    releaseSlow();
    await running.ready;
    expect(log).toContain("start after");
    await running.close();
  });

  it("on a failed start closes what started, its own group included, and names the part", async () => {
    const log: string[] = [];
    const running = startGroups([
      [part("cache", log)],
      [part("registry", log, { start: () => Promise.reject(new Error("hub unreachable")) })],
      [part("never", log)],
    ]);
    await expect(running.ready).rejects.toThrow("registry: hub unreachable");
    expect(log).toEqual(["start cache", "start registry", "close registry", "close cache"]);
  });

  it("close during a start aborts it, then closes every part started", async () => {
    const log: string[] = [];
    let began: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => (began = resolve));
    const running = startGroups([
      [
        part("registry", log, {
          start: async (signal) => {
            began();
            await new Promise((resolve) => {
              signal.addEventListener("abort", resolve);
            });
            throwIfAborted(signal);
          },
        }),
      ],
      [part("never", log)],
    ]);
    await waiting;
    await running.close();
    await expect(running.ready).rejects.toThrow("closed before it was ready");
    expect(log).toEqual(["start registry", "close registry"]);
  });

  it("closes every part even when one fails to close, then reports the failure", async () => {
    const log: string[] = [];
    const running = startGroups([
      [part("cache", log)],
      [part("server", log, { close: () => Promise.reject(new Error("port stuck")) })],
    ]);
    await running.ready;
    await expect(running.close()).rejects.toThrow("port stuck");
    expect(log).toEqual(["start cache", "start server", "close server", "close cache"]);
    // Closing twice closes nothing twice.
    await expect(running.close()).rejects.toThrow("port stuck");
    expect(log.filter((line) => line.startsWith("close"))).toHaveLength(2);
  });
});
