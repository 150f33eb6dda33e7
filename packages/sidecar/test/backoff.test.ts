import { describe, expect, it } from "vitest";
import { backoffDelay, DEFAULT_BACKOFF, delayAfterWatchEnded, nextStep } from "../src/backoff.ts";

const noJitter = { ...DEFAULT_BACKOFF, jitter: 0 };

describe("backoffDelay", () => {
  it("doubles from the initial delay up to the cap", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((a) => backoffDelay(noJitter, a, 0.5))).toEqual([
      250, 500, 1000, 2000, 4000, 8000, 15_000, 15_000,
    ]);
    expect(backoffDelay(noJitter, 10_000, 0.5)).toBe(15_000);
  });

  it("spreads retries by ±jitter and never exceeds the cap", () => {
    expect(backoffDelay(DEFAULT_BACKOFF, 2, 0)).toBe(800);
    expect(backoffDelay(DEFAULT_BACKOFF, 2, 0.999_999)).toBe(1200);
    expect(backoffDelay(DEFAULT_BACKOFF, 20, 0.999_999)).toBe(15_000);
  });
});

describe("nextStep", () => {
  it("relists at once on 410 Gone", () => {
    expect(nextStep(410, DEFAULT_BACKOFF, 5, 0.5)).toEqual({ action: "relist" });
  });

  it("retries after the back-off on any other failure", () => {
    expect(nextStep(undefined, noJitter, 0, 0.5)).toEqual({ action: "retry", delayMs: 250 });
    expect(nextStep(503, noJitter, 3, 0.5)).toEqual({ action: "retry", delayMs: 2000 });
    expect(nextStep(403, noJitter, 9, 0.5)).toEqual({ action: "retry", delayMs: 15_000 });
  });
});

describe("delayAfterWatchEnded", () => {
  it("watches again at once after a watch of normal length", () => {
    expect(delayAfterWatchEnded(300_000, noJitter, 0, 0.5)).toBe(0);
    expect(delayAfterWatchEnded(1000, noJitter, 3, 0.5)).toBe(0);
  });

  it("backs off when watches end as soon as they start", () => {
    expect(delayAfterWatchEnded(5, noJitter, 0, 0.5)).toBe(250);
    expect(delayAfterWatchEnded(5, noJitter, 4, 0.5)).toBe(4000);
  });
});
