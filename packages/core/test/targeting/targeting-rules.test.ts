import { describe, expect, it } from "vitest";
import { validateFlagSpec, type FieldError } from "../../src/index.ts";
import {
  jsonDepthExceeds,
  literalVariants,
  refCycle,
  TARGETING_MAX_BYTES,
} from "../../src/targeting/targeting-rules.ts";

const rollout = {
  type: "boolean",
  defaultValue: "false",
  variants: { on: "true", off: "false" },
  defaultVariant: "off",
  targeting: {
    fractional: [
      ["on", 10],
      ["off", 90],
    ],
  },
  delivery: { sidecar: { selector: { matchLabels: { app: "web" } } } },
};

function errorsOf(patch: Record<string, unknown>): FieldError[] {
  const result = validateFlagSpec({ ...rollout, ...patch });
  return result.ok ? [] : result.errors;
}

function nested(depth: number): unknown {
  let rule: unknown = "on";
  for (let i = 0; i < depth; i++) rule = { if: [true, rule, "off"] };
  return rule;
}

describe("targeting rules, checked when written", () => {
  it("accepts a percentage rollout, and a flag without variants as before", () => {
    expect(errorsOf({})).toEqual([]);
    const plain = { type: "boolean", defaultValue: "false", delivery: rollout.delivery };
    expect(validateFlagSpec(plain).ok).toBe(true);
  });

  it.each([
    ["no defaultVariant", { defaultVariant: undefined }, "defaultVariant", "is required"],
    [
      "an unknown defaultVariant",
      { defaultVariant: "maybe" },
      "defaultVariant",
      "must name one of the variants",
    ],
    [
      "a defaultValue that is not the default variant's",
      { defaultValue: "true" },
      "defaultValue",
      "must equal variants.off",
    ],
    [
      "a variant of the wrong type",
      { variants: { on: "yes", off: "false" } },
      "variants.on",
      "true or false",
    ],
    [
      "targeting without variants",
      { variants: undefined, defaultVariant: undefined },
      "targeting",
      "needs variants",
    ],
    [
      "a rule returning an unknown variant",
      { targeting: { if: [true, "maybe", "off"] } },
      "targeting",
      '"maybe"',
    ],
    [
      "a fractional bucket of an unknown variant",
      {
        targeting: {
          fractional: [
            ["on", 1],
            ["of", 1],
          ],
        },
      },
      "targeting",
      '"of"',
    ],
    ["an operator flagd does not know", { targeting: { frobnicate: [] } }, "targeting", "frobnicate"],
    ["a rule nested 1,000 deep", { targeting: nested(1000) }, "targeting", "deeper than 64"],
    ["a $ref to no evaluator", { targeting: { $ref: "absent" } }, "targeting", '"absent" names no evaluator'],
    [
      "a $ref cycle",
      { targeting: { $ref: "a" }, evaluators: { a: { $ref: "b" }, b: { or: [{ $ref: "a" }, true] } } },
      "evaluators.a",
      "a → b → a",
    ],
  ])("refuses %s, naming the field", (_why, patch, field, message) => {
    const errors = errorsOf(patch);
    expect(errors.map((e) => e.field)).toEqual([field]);
    expect(errors[0]?.message).toContain(message);
  });

  it("refuses a rule larger than the limit", () => {
    const big = { in: [{ var: "email" }, Array.from({ length: 8000 }, (_, i) => `user-${i}@example.com`)] };
    const errors = errorsOf({ targeting: { if: [big, "on", "off"] } });
    expect(errors.map((e) => e.field)).toEqual(["targeting"]);
    expect(errors[0]?.message).toContain(`more than the ${TARGETING_MAX_BYTES} allowed`);
  });

  it("refuses integer variants past what flagd's doubles hold exactly", () => {
    const errors = errorsOf({
      type: "integer",
      defaultValue: "1",
      variants: { small: "1", huge: "9223372036854775807" },
      defaultVariant: "small",
      targeting: { if: [true, "huge", "small"] },
    });
    expect(errors.map((e) => e.field)).toEqual(["variants.huge"]);
  });

  it("names prefixed fields inside a resource", () => {
    const result = validateFlagSpec({ ...rollout, defaultVariant: "maybe" }, "spec");
    expect(result.ok ? [] : result.errors.map((e) => e.field)).toEqual(["spec.defaultVariant"]);
  });
});

describe("rule walks", () => {
  it("measures depth without recursing into a hostile rule", () => {
    expect(jsonDepthExceeds(nested(3), 64)).toBe(false);
    expect(jsonDepthExceeds(nested(100_000), 64)).toBe(true);
  });

  it("finds the variants a rule returns as literals", () => {
    const rule = {
      if: [
        { "==": [{ var: "a" }, "x"] },
        "one",
        {
          fractional: [
            ["two", 1],
            ["three", 1],
          ],
        },
      ],
    };
    expect([...literalVariants(rule)].sort()).toEqual(["one", "three", "two"]);
  });

  it("finds $ref cycles and only cycles", () => {
    expect(refCycle({ a: { $ref: "b" }, b: { "==": [1, 1] } })).toBeUndefined();
    expect(refCycle({ a: { $ref: "a" } })).toEqual(["a", "a"]);
  });
});
