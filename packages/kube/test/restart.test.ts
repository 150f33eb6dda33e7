import { describe, expect, it } from "vitest";
import { restartAfter } from "../src/registry/restart.ts";

const policy = { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0 };
const unreachable = { kind: "failed" as const, failure: { kind: "unreachable" as const, message: "down" } };

describe("restartAfter", () => {
  it("lists again at once on 410 Gone", () => {
    const gone = { kind: "failed" as const, failure: { kind: "gone" as const, message: "too old" } };
    expect(restartAfter(gone, 3, policy, 0.5)).toEqual({ listAgain: true, delayMs: 0, attempt: 3 });
  });

  it("retries a failure after a back-off that grows with each failure in a row", () => {
    expect(restartAfter(unreachable, 0, policy, 0.5)).toEqual({ listAgain: false, delayMs: 100, attempt: 1 });
    expect(restartAfter(unreachable, 3, policy, 0.5)).toEqual({ listAgain: false, delayMs: 800, attempt: 4 });
    const rejected = { kind: "failed" as const, failure: { kind: "error" as const, message: "401" } };
    expect(restartAfter(rejected, 10, policy, 0.5)).toEqual({ listAgain: false, delayMs: 1000, attempt: 11 });
  });

  it("watches on at once after a watch the server ended normally, forgetting past failures", () => {
    expect(restartAfter({ kind: "closed", durationMs: 300_000 }, 5, policy, 0.5)).toEqual({
      listAgain: false,
      delayMs: 0,
      attempt: 0,
    });
  });

  it("backs off when watches end as soon as they open", () => {
    expect(restartAfter({ kind: "closed", durationMs: 5 }, 2, policy, 0.5)).toEqual({
      listAgain: false,
      delayMs: 400,
      attempt: 3,
    });
  });

  it("resumes a silent watch at once from where it was", () => {
    expect(restartAfter({ kind: "silent" }, 2, policy, 0.5)).toEqual({
      listAgain: false,
      delayMs: 0,
      attempt: 2,
    });
  });
});
