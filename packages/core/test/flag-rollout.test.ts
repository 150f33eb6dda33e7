import { describe, expect, it } from "vitest";
import { changeErrors, validateRolloutSpec, type FeatureFlagSpec } from "../src/index.ts";
import {
  invalidRolloutCases,
  invalidRolloutCasesTypeScriptOnly,
  validRolloutSpecs,
} from "../../../test/support/rollout-cases.ts";

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
