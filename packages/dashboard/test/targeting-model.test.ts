import { describe, expect, it } from "vitest";
import {
  bodyFromForm,
  emptyForm,
  evaluationDraft,
  formProblems,
  type FlagForm,
} from "../app/flags/form-model.ts";
import {
  NO_TARGETING,
  rolloutOf,
  rolloutTargeting,
  startingVariants,
  targetingBody,
  targetingFormOf,
  targetingProblems,
  targetingSummary,
  type TargetingForm,
} from "../app/flags/targeting-model.ts";

const onOff = { on: "true", off: "false" };
const quarter = {
  fractional: [
    ["on", 25],
    ["off", 75],
  ],
};

describe("rolloutOf", () => {
  it("reads exactly the rule the slider writes", () => {
    expect(rolloutOf(quarter, ["on", "off"])).toEqual({ variant: "on", other: "off", percent: 25 });
    expect(rolloutOf(rolloutTargeting({ variant: "off", other: "on", percent: 0 }), ["on", "off"])).toEqual({
      variant: "off",
      other: "on",
      percent: 0,
    });
  });

  it("is no rollout for any other rule", () => {
    const names = ["on", "off"];
    for (const targeting of [
      undefined,
      {},
      {
        fractional: [
          ["on", 25],
          ["off", 70],
        ],
      }, // not 100 in all
      {
        fractional: [
          ["on", 25.5],
          ["off", 74.5],
        ],
      },
      {
        fractional: [
          ["on", 25],
          ["on", 75],
        ],
      },
      {
        fractional: [
          ["on", 25],
          ["maybe", 75],
        ],
      }, // not a variant of the flag
      { fractional: [{ var: "email" }, ["on", 25], ["off", 75]] }, // custom bucketing
      {
        fractional: [
          ["on", 25],
          ["off", 75],
        ],
        if: [],
      },
      { if: [{ "==": [1, 1] }, "on", "off"] },
    ]) {
      expect(rolloutOf(targeting, names), JSON.stringify(targeting)).toBeUndefined();
    }
    expect(rolloutOf(quarter, ["on", "off", "maybe"])).toBeUndefined(); // a split of three variants
  });
});

describe("targetingFormOf and targetingBody", () => {
  it("round-trips a rollout, the slider's variant first, defaultValue following the default variant", () => {
    const flag = { variants: { off: "false", on: "true" }, defaultVariant: "off", targeting: quarter };
    const form = targetingFormOf(flag);
    expect(form).toMatchObject({ mode: "rollout", rolloutPercent: 25, defaultVariant: "off" });
    expect(form.variants.map((row) => row.name)).toEqual(["on", "off"]);
    expect(targetingBody(form, "ignored")).toEqual({ ...flag, defaultValue: "false" });
    expect(targetingBody({ ...form, rolloutPercent: 60 }, "").targeting).toEqual({
      fractional: [
        ["on", 60],
        ["off", 40],
      ],
    });
  });

  it("shows any other rule as JSON Logic text, and keeps the fields it does not edit", () => {
    const targeting = { if: [{ $ref: "beta" }, "on", "off"] };
    const flag = {
      key: "Checkout.New",
      variants: onOff,
      defaultVariant: "on",
      targeting,
      evaluators: { beta: { in: [{ var: "email" }, ["a@x"]] } },
      metadata: { team: "shop" },
    };
    const form = targetingFormOf(flag);
    expect(form.mode).toBe("rule");
    expect(JSON.parse(form.ruleText)).toEqual(targeting);
    expect(targetingBody(form, "")).toEqual({ ...flag, defaultValue: "true" });
    // Without the rule its evaluators would be refused ("needs a targeting rule"): they go with it.
    expect(targetingBody({ ...form, mode: "none" }, "")).toEqual({
      key: "Checkout.New",
      metadata: { team: "shop" },
      variants: onOff,
      defaultVariant: "on",
      defaultValue: "true",
    });
  });

  it("is one value and nothing else for a flag without variants", () => {
    expect(targetingFormOf({})).toEqual(NO_TARGETING);
    expect(targetingBody(NO_TARGETING, "42")).toEqual({ defaultValue: "42" });
  });
});

describe("targetingProblems", () => {
  const base: TargetingForm = { ...NO_TARGETING, ...startingVariants("boolean", "false") };

  it("finds nothing wrong with on/off variants, a rollout or a rule", () => {
    expect(base.defaultVariant).toBe("off");
    expect(targetingProblems(base, "boolean")).toEqual({});
    expect(targetingProblems({ ...base, mode: "rollout", rolloutPercent: 25 }, "boolean")).toEqual({});
    expect(
      targetingProblems({ ...base, mode: "rule", ruleText: '{"if": [true, "on", "off"]}' }, "boolean"),
    ).toEqual({});
  });

  it("names JSON syntax errors and a rule that is not an object at once, under targeting", () => {
    const syntax = targetingProblems({ ...base, mode: "rule", ruleText: '{"if": [' }, "boolean")["targeting"];
    expect(syntax).toMatch(/^targeting: not valid JSON: /);
    expect(targetingProblems({ ...base, mode: "rule", ruleText: "[1]" }, "boolean")["targeting"]).toMatch(
      /must be a JSON object/,
    );
    expect(targetingProblems({ ...base, mode: "rule", ruleText: " " }, "boolean")["targeting"]).toMatch(
      /write a rule/,
    );
  });

  it("checks variant names, values by the flag's type, the default, and a rollout's two variants", () => {
    const three = [...base.variants, { name: "on", value: "maybe" }];
    expect(targetingProblems({ ...base, variants: three }, "boolean")["variants"]).toBe(
      "variants: variant on appears twice",
    );
    const badValue = [{ name: "on", value: "yes" }, base.variants[1] ?? { name: "", value: "" }];
    expect(targetingProblems({ ...base, variants: badValue }, "boolean")["variants"]).toMatch(
      /^variants: on: /,
    );
    expect(targetingProblems({ ...base, defaultVariant: "gone" }, "boolean")["defaultVariant"]).toBeDefined();
    const split = {
      ...base,
      mode: "rollout" as const,
      variants: [...base.variants, { name: "x", value: "true" }],
    };
    expect(targetingProblems(split, "boolean")["targeting"]).toMatch(/exactly two variants/);
  });
});

describe("targetingSummary (the list's badge)", () => {
  it("says a rollout's share, 'targeted' for any other rule, nothing without a rule", () => {
    expect(targetingSummary({ variants: onOff, targeting: quarter })).toBe("25% on");
    expect(targetingSummary({ variants: onOff, targeting: { if: [true, "on", "off"] } })).toBe("targeted");
    expect(targetingSummary({ variants: onOff })).toBeUndefined();
    expect(targetingSummary({})).toBeUndefined();
  });
});

describe("the form with variants", () => {
  const form: FlagForm = {
    ...emptyForm("local", "shop"),
    name: "new-checkout",
    labels: [{ key: "app", value: "web" }],
    value: "not a boolean", // unused with variants
    targeting: {
      ...NO_TARGETING,
      ...startingVariants("boolean", "true"),
      mode: "rollout",
      rolloutPercent: 25,
    },
  };

  it("sends the default variant's value as defaultValue, and the slider's split", () => {
    expect(formProblems(form)).toEqual({});
    expect(bodyFromForm(form)).toMatchObject({
      defaultValue: "true",
      variants: onOff,
      defaultVariant: "on",
      targeting: quarter,
    });
  });

  it("is evaluated before it is named, but not while another field has a problem", () => {
    const draft = evaluationDraft({ ...form, name: "" });
    expect(draft).toBeDefined();
    expect(draft).not.toHaveProperty("name");
    expect(draft).toMatchObject({ namespace: "shop", clusterId: "local", targeting: quarter });
    expect(evaluationDraft(form)).toMatchObject({ name: "new-checkout" });
    expect(evaluationDraft({ ...form, labels: [] })).toBeUndefined();
    expect(
      evaluationDraft({ ...form, targeting: { ...form.targeting, mode: "rule", ruleText: "{" } }),
    ).toBeUndefined();
  });
});
