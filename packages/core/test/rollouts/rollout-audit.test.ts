import { describe, expect, it } from "vitest";
import { rolloutSteps, type FlagRolloutResource } from "../../src/index.ts";

const plan = (status: FlagRolloutResource["status"]): FlagRolloutResource => ({
  metadata: { name: "checkout-on", namespace: "svc-system", uid: "u1" },
  spec: {
    flag: { namespace: "shop", name: "checkout" },
    change: { defaultValue: "true" },
    waves: [{ clusters: ["a"] }, { clusters: ["b"] }],
  },
  ...(status === undefined ? {} : { status }),
});

describe("a plan's steps for the audit log", () => {
  it("lists each step its status records, oldest first, under keys that do not change as it goes on", () => {
    const baking = plan({
      phase: "Progressing",
      startedAt: "2026-11-27T10:00:00.000Z",
      currentWave: 0,
      waves: [
        {
          phase: "Baking",
          startedAt: "2026-11-27T10:00:00.000Z",
          bakeUntil: "2026-11-27T10:01:02.000Z",
          clusters: [{ id: "a", phase: "Baking", deliveredAt: "2026-11-27T10:00:02.000Z" }],
        },
        { phase: "Pending", clusters: [{ id: "b", phase: "Pending" }] },
      ],
    });
    const early = rolloutSteps(baking);
    expect(early.map((s) => [s.key, s.at, s.step])).toEqual([
      ["u1/Started", "2026-11-27T10:00:00.000Z", "Started"],
      ["u1/wave/0/WaveStarted", "2026-11-27T10:00:00.000Z", "WaveStarted"],
      ["u1/wave/0/Baking", "2026-11-27T10:00:02.000Z", "Baking"],
    ]);
    const done = plan({
      phase: "RolledBack",
      startedAt: "2026-11-27T10:00:00.000Z",
      finishedAt: "2026-11-27T10:00:09.000Z",
      message:
        "wave 0 failed its gate: cluster a: web-1: CrashLoopBackOff after the change; every applied wave rolled back",
      waves: [
        {
          ...(baking.status?.waves?.[0] ?? { clusters: [] }),
          phase: "RolledBack",
          finishedAt: "2026-11-27T10:00:05.000Z",
          message: "cluster a: web-1: CrashLoopBackOff after the change",
        },
        { phase: "Pending", clusters: [{ id: "b", phase: "Pending" }] },
      ],
    });
    const late = rolloutSteps(done);
    // The steps seen early keep their keys: recorded once, whenever they are seen again.
    expect(late.map((s) => s.key)).toEqual([
      ...early.map((s) => s.key),
      "u1/wave/0/WaveFailed",
      "u1/wave/0/WaveRolledBack",
      "u1/RolledBack",
    ]);
    expect(late.find((s) => s.step === "WaveFailed")?.message).toBe(
      "wave 0: cluster a: web-1: CrashLoopBackOff after the change",
    );
    expect(late.at(-1)?.message).toContain("every applied wave rolled back");
    expect(rolloutSteps(plan(undefined))).toEqual([]);
  });
});
