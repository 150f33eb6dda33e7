import { describe, expect, it } from "vitest";
import { backoffDelay, DEFAULT_BACKOFF } from "../src/backoff.ts";
import { isOlderVersion } from "../src/resource-version.ts";

describe("backoffDelay", () => {
  const policy = { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0.2 };

  it("doubles from the initial delay up to the cap", () => {
    expect([0, 1, 2, 3, 4, 10, 1e6].map((attempt) => backoffDelay(policy, attempt, 0.5))).toEqual([
      100, 200, 400, 800, 1000, 1000, 1000,
    ]);
  });

  it("spreads retries by ±jitter and never exceeds the cap", () => {
    expect(backoffDelay(policy, 0, 0)).toBe(80);
    expect(backoffDelay(policy, 0, 0.999999)).toBe(120);
    expect(backoffDelay(policy, 10, 0.999999)).toBe(1000);
  });

  it("reaches client-go's 30 s cap", () => {
    expect(backoffDelay(DEFAULT_BACKOFF, 20, 0.5)).toBe(30_000);
  });
});

describe("isOlderVersion", () => {
  it("compares integers numerically, not as strings", () => {
    expect(isOlderVersion("9", "10")).toBe(true);
    expect(isOlderVersion("10", "9")).toBe(false);
    expect(isOlderVersion("10", "10")).toBe(false);
    expect(isOlderVersion("123456789012345678901", "123456789012345678902")).toBe(true);
  });

  it("calls nothing older when a version is missing or not an integer", () => {
    expect(isOlderVersion(undefined, "10")).toBe(false);
    expect(isOlderVersion("1", undefined)).toBe(false);
    expect(isOlderVersion("abc", "10")).toBe(false);
    expect(isOlderVersion("1", "1e9")).toBe(false);
  });
});
