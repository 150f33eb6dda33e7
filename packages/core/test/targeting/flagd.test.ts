import { FlagdCore } from "@openfeature/flagd-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compileFlag,
  deliveredValueText,
  evaluateFlag,
  flagdFlagOf,
  isTargeted,
  STATIC_VARIANT,
  typedValue,
  valueText,
  workloadContext,
  type EvaluatedSpec,
} from "../../src/targeting/flagd.ts";

const rollout: EvaluatedSpec = {
  type: "boolean",
  defaultValue: "false",
  variants: { on: "true", off: "false" },
  defaultVariant: "off",
  targeting: {
    fractional: [
      ["on", 25],
      ["off", 75],
    ],
  },
};

/** flagd-core used directly, as a flagd user would load the same definition. */
function flagdAnswer(key: string, spec: EvaluatedSpec, context: Record<string, string>) {
  const core = new FlagdCore();
  core.setConfigurations(
    JSON.stringify({ flags: { [key]: flagdFlagOf(spec) }, $evaluators: spec.evaluators ?? {} }),
  );
  return core.resolveBooleanEvaluation(key, true, context);
}

describe("flagd evaluation", () => {
  it("answers a flag without variants as flagd answers a static flag: its defaultValue, reason STATIC", () => {
    const spec: EvaluatedSpec = { type: "integer", defaultValue: "42" };
    expect(evaluateFlag("limit", compileFlag("limit", spec, true), {})).toEqual({
      key: "limit",
      value: 42,
      variant: STATIC_VARIANT,
      reason: "STATIC",
      metadata: {},
    });
    expect(isTargeted(spec)).toBe(false);
  });

  it("answers a disabled flag with reason DISABLED and no value (the caller's default applies)", () => {
    const evaluation = evaluateFlag("f", compileFlag("f", { ...rollout, enabled: false }, true), {});
    expect(evaluation).toEqual({ key: "f", reason: "DISABLED", metadata: {} });
  });

  it("buckets a fractional rollout as flagd-core does, key for key", () => {
    const compiled = compileFlag("new.Checkout", rollout, true);
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), (targetingKey) => {
        const ours = evaluateFlag("new.Checkout", compiled, { targetingKey });
        const theirs = flagdAnswer("new.Checkout", rollout, { targetingKey });
        expect({ value: ours.value, variant: ours.variant, reason: ours.reason }).toEqual({
          value: theirs.value,
          variant: theirs.variant,
          reason: theirs.reason,
        });
      }),
    );
  });

  it("keys the buckets on the flag's key: the same rule splits another key's users differently", () => {
    const keys = Array.from({ length: 200 }, (_, i) => `user-${i}`);
    const variantsOf = (key: string) =>
      keys.map(
        (targetingKey) => evaluateFlag(key, compileFlag(key, rollout, true), { targetingKey }).variant,
      );
    expect(variantsOf("a")).not.toEqual(variantsOf("b"));
  });

  it("resolves $ref to the flag's evaluators", () => {
    const spec: EvaluatedSpec = {
      ...rollout,
      targeting: { if: [{ $ref: "staff" }, "on", "off"] },
      evaluators: { staff: { ends_with: [{ var: "email" }, "@example.com"] } },
    };
    const compiled = compileFlag("f", spec, true);
    expect(evaluateFlag("f", compiled, { email: "ada@example.com" })).toMatchObject({
      value: true,
      reason: "TARGETING_MATCH",
    });
    expect(evaluateFlag("f", compiled, { email: "bob@elsewhere.org" })).toMatchObject({ value: false });
  });

  it("resolves a $ref inside an evaluator whatever the evaluators' order (Kubernetes stores map keys sorted)", () => {
    const spec: EvaluatedSpec = {
      ...rollout,
      targeting: { if: [{ $ref: "z-outer" }, "on", "off"] },
      // flagd-core resolves $refs in file order: "a-inner" first would leave z-outer's $ref unresolved.
      evaluators: {
        "a-inner": { in: [{ var: "tier" }, ["gold"]] },
        "z-outer": { and: [{ $ref: "a-inner" }, true] },
      },
    };
    const compiled = compileFlag("f", spec, true);
    expect(evaluateFlag("f", compiled, { tier: "gold" })).toMatchObject({
      value: true,
      reason: "TARGETING_MATCH",
    });
    expect(evaluateFlag("f", compiled, { tier: "lead" })).toMatchObject({
      value: false,
      reason: "TARGETING_MATCH",
    });
  });

  it("reports a rule flagd-core cannot build as PARSE_ERROR, and a missing variant as GENERAL", () => {
    const unknownOperator = compileFlag("f", { ...rollout, targeting: { frobnicate: [1] } }, false);
    expect(evaluateFlag("f", unknownOperator, {})).toMatchObject({
      reason: "ERROR",
      errorCode: "PARSE_ERROR",
    });
    const missing = compileFlag("f", { ...rollout, targeting: { if: [true, "absent", "off"] } }, false);
    expect(evaluateFlag("f", missing, {})).toMatchObject({ reason: "ERROR", errorCode: "GENERAL" });
  });

  it("refuses in strict mode what flagd's schema refuses", () => {
    const result = compileFlag("f", { ...rollout, targeting: { frobnicate: [1] } }, true);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain("frobnicate");
  });

  it("describes a workload by the context of docs/targeting.md", () => {
    expect(
      workloadContext({
        cluster: "eu-1",
        clusterLabels: { region: "eu" },
        namespace: "shop",
        kind: "Deployment",
        name: "web",
        labels: { app: "web" },
      }),
    ).toEqual({
      targetingKey: "eu-1/shop/Deployment/web",
      cluster: "eu-1",
      clusterLabels: { region: "eu" },
      namespace: "shop",
      kind: "Deployment",
      name: "web",
      labels: { app: "web" },
    });
  });

  it("delivers the chosen variant's text, and the defaultValue when evaluation gives no value", () => {
    const spec: EvaluatedSpec = {
      type: "json",
      defaultValue: '{"a": 1}',
      variants: { one: '{"a": 1}', two: '{"a":  2}' },
      defaultVariant: "one",
      targeting: { if: [{ "==": [{ var: "cluster" }, "eu-1"] }, "two", "one"] },
    };
    const compiled = compileFlag("f", spec, true);
    // The variant's own text, spacing kept: a ConfigMap or env value does not change by re-serialising.
    expect(deliveredValueText(spec, evaluateFlag("f", compiled, { cluster: "eu-1" }))).toBe('{"a":  2}');
    expect(deliveredValueText(spec, evaluateFlag("f", compiled, { cluster: "us-1" }))).toBe('{"a": 1}');
    const disabled = compileFlag("f", { ...spec, enabled: false }, true);
    expect(deliveredValueText(spec, evaluateFlag("f", disabled, { cluster: "eu-1" }))).toBe('{"a": 1}');
  });

  it("turns value text into flagd's typed values and back", () => {
    expect(typedValue("boolean", "true")).toBe(true);
    expect(typedValue("integer", "-7")).toBe(-7);
    expect(typedValue("json", '{"a":[1]}')).toEqual({ a: [1] });
    expect(typedValue("string", "x")).toBe("x");
    expect(valueText("integer", 2 ** 53)).toBeUndefined();
    expect(valueText("boolean", "true")).toBeUndefined();
    expect(valueText("json", { a: 1 })).toBe('{"a":1}');
  });
});
