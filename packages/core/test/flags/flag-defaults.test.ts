import { describe, expect, it } from "vitest";
import { evaluationKeyConflict, validateFlagCreate, withDefaultValue } from "../../src/index.ts";

const variants = { on: "true", off: "false" };

describe("withDefaultValue", () => {
  it("derives defaultValue from the default variant when it is left out", () => {
    expect(withDefaultValue({ variants, defaultVariant: "off" })).toEqual({
      ok: true,
      value: { variants, defaultVariant: "off", defaultValue: "false" },
    });
  });

  it("keeps a given defaultValue (agreement is checked with the variant rules)", () => {
    const given = { defaultValue: "true", variants, defaultVariant: "off" };
    expect(withDefaultValue(given)).toEqual({ ok: true, value: given });
  });

  it("names defaultValue when it cannot be derived", () => {
    for (const definition of [{}, { variants }, { variants, defaultVariant: "maybe" }]) {
      const result = withDefaultValue(definition, "flag");
      expect(result.ok).toBe(false);
      expect(!result.ok && result.errors.map((e) => e.field)).toEqual(["flag.defaultValue"]);
    }
  });

  it("never takes an inherited property for a variant", () => {
    expect(withDefaultValue({ variants, defaultVariant: "constructor" }).ok).toBe(false);
  });
});

describe("create bodies with variants", () => {
  const body = {
    name: "checkout",
    namespace: "shop",
    clusterId: "local",
    type: "boolean",
    delivery: { sidecar: { selector: { matchLabels: { app: "web" } } } },
    variants,
    defaultVariant: "on",
  };

  it("accepts one without defaultValue and settles it", () => {
    const result = validateFlagCreate(body);
    expect(result.ok && result.value.defaultValue).toBe("true");
  });

  it("refuses a defaultValue that disagrees with the default variant, naming defaultValue", () => {
    const result = validateFlagCreate({ ...body, defaultValue: "false" });
    expect(!result.ok && result.errors.map((e) => e.field)).toEqual(["defaultValue"]);
  });
});

describe("evaluationKeyConflict", () => {
  const flag = (name: string, key?: string) => ({
    metadata: { name, namespace: "shop" },
    spec: key === undefined ? {} : { key },
  });

  it("names the flag that already has the key", () => {
    expect(evaluationKeyConflict(flag("b", "a"), [flag("a")])).toMatch(/^key: flag shop\/a .*"a"/);
    expect(evaluationKeyConflict(flag("a"), [flag("b", "a")])).toMatch(/^name: flag shop\/b /);
  });

  it("lets a flag keep its own key, and distinct keys live side by side", () => {
    expect(evaluationKeyConflict(flag("a", "A.b"), [flag("a", "A.b"), flag("b")])).toBeUndefined();
    expect(evaluationKeyConflict(flag("c", "C"), [flag("a", "A.b"), flag("b")])).toBeUndefined();
  });

  it("compares keys within one namespace only", () => {
    const other = { metadata: { name: "x", namespace: "other" }, spec: { key: "a" } };
    expect(evaluationKeyConflict(flag("a"), [other])).toBeUndefined();
  });
});
