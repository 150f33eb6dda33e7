import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compileFlag,
  compileFlagLenient,
  evaluateFlag,
  staticEvaluation,
  type EvaluatedSpec,
} from "../../src/targeting/flagd.ts";
import { FLAG_TYPES } from "../../src/vocabulary.ts";

/** Flags without targeting, good and bad: values of any type's text, default variants present or not. */
const staticSpec: fc.Arbitrary<EvaluatedSpec> = fc
  .record({
    type: fc.constantFrom(...FLAG_TYPES),
    text: fc.constantFrom("true", "false", "7", "-0", "12345678901234567890", '{"a":[1]}', "null", "x", ""),
    variants: fc.option(
      fc.dictionary(
        fc.constantFrom("on", "off", "a b", "__proto__", ""),
        fc.constantFrom("true", "3", '"s"', "[]", "x"),
      ),
      { nil: undefined },
    ),
    defaultVariant: fc.option(fc.constantFrom("on", "off", "__proto__", "", "absent"), { nil: undefined }),
    enabled: fc.option(fc.boolean(), { nil: undefined }),
    metadata: fc.option(
      fc.dictionary(fc.constantFrom("team", "1", "b"), fc.oneof(fc.string(), fc.integer(), fc.boolean())),
      {
        nil: undefined,
      },
    ),
  })
  .map(({ text, ...rest }) => ({ ...rest, defaultValue: text }));

describe("staticEvaluation", () => {
  it("answers what flagd-core answers for every flag it answers (seed printed on failure)", () => {
    fc.assert(
      fc.property(staticSpec, fc.constantFrom("f", "new.Checkout"), (spec, key) => {
        const ours = staticEvaluation(key, spec);
        if (ours !== undefined) expect(ours).toEqual(evaluateFlag(key, compileFlag(key, spec, false), {}));
      }),
      { numRuns: 500 },
    );
  });

  it("answers the flags the sidecar serves without flagd-core: a defaultValue alone, or a valid default variant", () => {
    expect(staticEvaluation("limit", { type: "integer", defaultValue: "42" })).toEqual({
      key: "limit",
      value: 42,
      variant: "default",
      reason: "STATIC",
      metadata: {},
    });
    const colours: EvaluatedSpec = {
      type: "string",
      defaultValue: "blue",
      variants: { blue: "blue", green: "green" },
      defaultVariant: "green",
      metadata: { team: "web" },
    };
    expect(staticEvaluation("colour", colours)).toMatchObject({ variant: "green", reason: "STATIC" });
    expect(staticEvaluation("colour", { ...colours, enabled: false })).toEqual({
      key: "colour",
      reason: "DISABLED",
      metadata: { team: "web" },
    });
  });

  it("leaves to flagd-core what a context or a parse can change: targeting, evaluators, a missing default variant", () => {
    const base: EvaluatedSpec = {
      type: "boolean",
      defaultValue: "false",
      variants: { on: "true", off: "false" },
    };
    expect(staticEvaluation("f", { ...base, defaultVariant: "off", targeting: { if: [true, "on"] } })).toBe(
      undefined,
    );
    expect(staticEvaluation("f", { ...base, defaultVariant: "off", evaluators: {} })).toBe(undefined);
    expect(staticEvaluation("f", { ...base, defaultVariant: "absent" })).toBe(undefined);
  });
});

/** Targeted flags, good and bad rules, and contexts that reach every branch. */
const targetedSpec: fc.Arbitrary<EvaluatedSpec> = fc.record({
  type: fc.constant("string" as const),
  defaultValue: fc.constantFrom("a", "b"),
  variants: fc.constantFrom<Record<string, string>>({ a: "a", b: "b" }, { a: "a" }),
  defaultVariant: fc.constantFrom("a", "b", "absent"),
  enabled: fc.boolean(),
  targeting: fc.constantFrom<Record<string, unknown>>(
    {
      fractional: [
        ["a", 50],
        ["b", 50],
      ],
    },
    { fractional: [{ cat: [{ var: "$flagd.flagKey" }, { var: "email" }] }, ["a", -0], ["b", 1]] },
    { if: [{ in: [{ var: "tenant" }, ["t1", "t2"]] }, "b", "a"] },
    { if: [{ sem_ver: [{ var: "version" }, ">=", "1.2.0"] }, "b", null] },
    { if: [{ starts_with: [{ var: "email" }, "admin"] }, "c", "a"] },
    { frobnicate: [1] },
    {},
  ),
  metadata: fc.option(fc.constant({ team: "web", n: -0 }), { nil: undefined }),
});
const context = fc.record(
  {
    targetingKey: fc.constantFrom("user-1", "user-2", ""),
    tenant: fc.constantFrom("t1", "t3"),
    email: fc.constantFrom("admin@x.io", "ada@x.io"),
    version: fc.constantFrom("1.1.9", "v1.2", "not-a-version"),
  },
  { requiredKeys: [] },
);

describe("compileFlagLenient", () => {
  it("evaluates as compileFlag without strict does, for every rule and context (seed printed on failure)", () => {
    fc.assert(
      fc.property(targetedSpec, context, fc.constantFrom("f", "new.Checkout"), (spec, ctx, key) => {
        const lenient = compileFlagLenient(key, spec);
        const parsed = compileFlag(key, spec, false);
        expect(lenient.ok).toBe(parsed.ok);
        expect(evaluateFlag(key, lenient, ctx)).toEqual(evaluateFlag(key, parsed, ctx));
      }),
      { numRuns: 500 },
    );
  });
});
