import { describe, expect, it } from "vitest";
import {
  blockingPlan,
  changeErrors,
  FlagRolloutStatus as FlagRolloutStatusSchema,
  schemaErrors,
  STATUS_TARGETS_MAX,
  validateRolloutSpec,
  type FeatureFlagSpec,
  type FlagRolloutResource,
  type FlagRolloutStatus,
} from "../../src/index.ts";
import {
  invalidRolloutCases,
  invalidRolloutCasesTypeScriptOnly,
  validRolloutSpecs,
} from "../../../../test/support/rollout-cases.ts";

describe("FlagRollout spec validation", () => {
  it.each(validRolloutSpecs.map((spec, i) => [i, spec] as const))("accepts valid spec %i", (_i, spec) => {
    expect(validateRolloutSpec(spec)).toEqual({ ok: true, value: spec });
  });

  it.each([...invalidRolloutCases, ...invalidRolloutCasesTypeScriptOnly].map((c) => [c.why, c] as const))(
    "refuses %s, naming the field",
    (_why, c) => {
      const result = validateRolloutSpec(c.spec, "spec");
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.errors.map((e) => e.field)).toContain(`spec.${c.field}`);
    },
  );

  it("checks a change against the flag it changes: a value of its type, variants that hold", () => {
    const flag: FeatureFlagSpec = {
      type: "integer",
      defaultValue: "1",
      delivery: { envVar: { selector: { matchLabels: { app: "web" } } } },
    };
    expect(changeErrors(flag, { defaultValue: "2" }, "change")).toEqual([]);
    expect(changeErrors(flag, { defaultValue: "two" }, "change")).toEqual([
      {
        field: "change.defaultValue",
        message: "must be a signed 64-bit decimal integer for an integer flag",
      },
    ]);
    expect(changeErrors(flag, { defaultVariant: "a" }, "change").map((e) => e.field)).toEqual([
      "change.defaultVariant",
    ]);
  });
});

describe("the status a plan records", () => {
  it("holds a record of every target workload the flag's status can list in a cluster", () => {
    const cluster = (count: number) => ({
      waves: [
        {
          phase: "Applying",
          clusters: [
            {
              id: "local",
              phase: "Applying",
              workloads: Array.from({ length: count }, (_, i) => ({
                kind: "Deployment",
                name: `w-${i}`,
                health: "Progressing",
              })),
            },
          ],
        },
      ],
    });
    expect(schemaErrors(FlagRolloutStatusSchema, cluster(STATUS_TARGETS_MAX))).toEqual([]);
    expect(schemaErrors(FlagRolloutStatusSchema, cluster(STATUS_TARGETS_MAX + 1))).not.toEqual([]);
  });
});

describe("one plan per flag at a time", () => {
  const plan = (
    name: string,
    created: string,
    flag = "checkout",
    status?: FlagRolloutStatus,
  ): FlagRolloutResource => ({
    metadata: { name, namespace: "svc-system", creationTimestamp: created },
    spec: {
      flag: { namespace: "shop", name: flag },
      change: { enabled: false },
      waves: [{ clusters: ["a"] }],
    },
    ...(status === undefined ? {} : { status }),
  });

  it("lets the first unfinished plan of a flag go, and holds the others back", () => {
    const first = plan("b-first", "2026-11-27T10:00:00Z");
    const second = plan("a-second", "2026-11-27T10:00:05Z");
    const other = plan("other", "2026-11-27T09:00:00Z", "theme");
    const all = [first, second, other];
    expect(blockingPlan(first, all)).toBeUndefined();
    expect(blockingPlan(second, all)).toBe("b-first");
    expect(blockingPlan(other, all)).toBeUndefined();
    // A started plan goes first whatever its age; a finished one blocks nothing.
    const started = plan("c-started", "2026-11-27T11:00:00Z", "checkout", {
      phase: "Progressing",
      waves: [],
    });
    expect(blockingPlan(first, [...all, started])).toBe("c-started");
    expect(blockingPlan(started, [...all, started])).toBeUndefined();
    const done = plan("d-done", "2026-11-27T08:00:00Z", "checkout", { phase: "Succeeded" });
    expect(blockingPlan(first, [...all, done])).toBeUndefined();
    // Same second: the name decides.
    const twin = plan("a-twin", "2026-11-27T10:00:00Z");
    expect(blockingPlan(first, [first, twin])).toBe("a-twin");
    expect(blockingPlan(twin, [first, twin])).toBeUndefined();
  });
});
