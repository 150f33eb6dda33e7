import { describe, expect, it } from "vitest";
import {
  exportFlagdFile,
  flagNameForKey,
  importFlagdFile,
  isDns1123Label,
  type NamedFlag,
} from "../../src/index.ts";
import {
  answers,
  loadStrictly,
  migratedFlagdFile,
  sampleContexts,
} from "../../../../test/support/flagd-files.ts";

const delivery = { sidecar: { selector: { matchLabels: { app: "shop" } } } };

function imported(file: unknown = migratedFlagdFile): NamedFlag[] {
  const result = importFlagdFile(file, { delivery });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value;
}

describe("flagNameForKey", () => {
  it("keeps a key that is already a name, and maps others to a stable DNS-1123 label with a hash", () => {
    expect(flagNameForKey("max-items")).toBe("max-items");
    const name = flagNameForKey("New.Checkout_Flag");
    expect(name).toMatch(/^new-checkout-flag-[0-9a-f]{8}$/);
    expect(flagNameForKey("New.Checkout_Flag")).toBe(name);
    for (const key of [
      "A",
      "x".repeat(300),
      "--..--",
      "Ünïcode/flag",
      "new-checkout-flag",
      "NEW_CHECKOUT_FLAG",
    ]) {
      expect(isDns1123Label(flagNameForKey(key)), key).toBe(true);
    }
    expect(flagNameForKey("NEW_CHECKOUT_FLAG")).not.toBe(flagNameForKey("new_checkout_flag"));
  });
});

describe("importFlagdFile", () => {
  it("maps every flag to a FeatureFlag: typed variants as text, the key kept, only the evaluators it uses", () => {
    const flags = imported();
    const byName = Object.fromEntries(flags.map((flag) => [flag.name, flag.spec]));
    const checkout = byName[flagNameForKey("New.Checkout_Flag")];
    expect(checkout).toEqual({
      type: "boolean",
      defaultValue: "false",
      enabled: true,
      delivery,
      key: "New.Checkout_Flag",
      variants: { on: "true", off: "false" },
      defaultVariant: "off",
      targeting: migratedFlagdFile.flags["New.Checkout_Flag"].targeting,
      evaluators: {
        isBeta: migratedFlagdFile.$evaluators.isBeta,
        isStaff: migratedFlagdFile.$evaluators.isStaff,
      },
      metadata: { flagSetId: "shop", owner: "checkout" },
    });
    expect(byName["max-items"]).toMatchObject({
      type: "integer",
      defaultValue: "10",
      variants: { small: "10", big: "20" },
    });
    expect(byName["max-items"]).not.toHaveProperty("key");
    expect(byName[flagNameForKey("ui.Theme")]).toMatchObject({
      type: "json",
      enabled: false,
      defaultValue: '{"bg":"#fff"}',
    });
    expect(byName[flagNameForKey("BANNER_COLOR")]).toMatchObject({ type: "string", key: "BANNER_COLOR" });
  });

  it("imports nothing from a partly invalid file and lists every problem", () => {
    const file = {
      flags: {
        ...migratedFlagdFile.flags,
        ratio: { state: "ENABLED", variants: { a: 0.5, b: 1 }, defaultVariant: "b" },
        "no-default": { state: "ENABLED", variants: { a: "x" } },
        mixed: { state: "ENABLED", variants: { a: "x", b: 1 }, defaultVariant: "a" },
        "bad-rule": {
          state: "ENABLED",
          variants: { on: true, off: false },
          defaultVariant: "off",
          targeting: { if: [true, "maybe", "off"] },
        },
        cycle: {
          state: "ENABLED",
          variants: { on: true, off: false },
          defaultVariant: "off",
          targeting: { if: [{ $ref: "loop" }, "on", "off"] },
        },
      },
      $evaluators: { ...migratedFlagdFile.$evaluators, loop: { and: [{ $ref: "loop" }] } },
    };
    const result = importFlagdFile(file, { delivery });
    expect(result.ok).toBe(false);
    const fields = result.ok ? [] : result.errors.map((e) => e.field);
    expect(fields).toEqual([
      'flags["bad-rule"].targeting',
      'flags["cycle"].evaluators.loop',
      'flags["mixed"].variants',
      'flags["no-default"].defaultVariant',
      'flags["ratio"].variants',
    ]);
    expect(!result.ok && result.errors.find((e) => e.field.includes("ratio"))?.message).toContain("0.5");
  });

  it("refuses what is not a flagd file", () => {
    for (const file of [
      null,
      [],
      {},
      { flags: [] },
      { flags: {}, extra: 1 },
      { flags: {}, $evaluators: { a: 1 } },
    ]) {
      expect(importFlagdFile(file, { delivery }).ok, JSON.stringify(file)).toBe(false);
    }
  });
});

describe("exportFlagdFile", () => {
  it("writes a file flagd-core loads strictly, and every flag answers as before for 1,000 contexts", () => {
    const exported = exportFlagdFile(imported());
    const before = loadStrictly(migratedFlagdFile);
    const after = loadStrictly(exported);
    expect([...after.getFlags().keys()].sort()).toEqual(Object.keys(migratedFlagdFile.flags).sort());
    const variants = new Set<unknown>();
    for (const context of sampleContexts(1000)) {
      const answer = answers(after, context);
      expect(answer).toEqual(answers(before, context));
      for (const [key, flag] of Object.entries(answer))
        variants.add(`${key}=${String((flag as { variant?: string }).variant)}`);
    }
    // The contexts reach every branch: both rollout buckets, every colour, both item limits.
    for (const seen of [
      "New.Checkout_Flag=on",
      "New.Checkout_Flag=off",
      "BANNER_COLOR=red",
      "BANNER_COLOR=green",
      "BANNER_COLOR=blue",
      "max-items=big",
      "max-items=small",
    ])
      expect(variants).toContain(seen);
  });

  it("merges evaluators back; one name holding two rules is renamed in the flag that uses the second", () => {
    const flag = {
      state: "ENABLED",
      variants: { on: true, off: false },
      defaultVariant: "off",
      targeting: { if: [{ $ref: "match" }, "on", "off"] },
    };
    const flags: NamedFlag[] = ["acme", "globex"].map((tenant) => {
      const one = imported({
        flags: { [`for-${tenant}`]: flag },
        $evaluators: { match: { "==": [{ var: "tenant" }, tenant] } },
      });
      return one[0] as NamedFlag;
    });
    const exported = exportFlagdFile(flags);
    const names = Object.keys(exported.$evaluators ?? {});
    expect(names).toHaveLength(2);
    expect(names).toContain("match");
    expect(names.find((name) => name !== "match")).toMatch(/^match-[0-9a-f]{8}$/);
    expect(exportFlagdFile(flags)).toEqual(exported);
    const core = loadStrictly(exported);
    for (const tenant of ["acme", "globex", "initech"]) {
      const result = answers(core, { tenant });
      expect(result["for-acme"]).toMatchObject({ value: tenant === "acme" });
      expect(result["for-globex"]).toMatchObject({ value: tenant === "globex" });
    }
  });

  it("lists each evaluator before those it refers to, so flagd-core resolves nested $refs", () => {
    // A flag sorted first brings isStaff alone; the checkout flag's isBeta refers to it.
    const staffOnly = imported({
      flags: {
        AAA: {
          state: "ENABLED",
          variants: { on: true, off: false },
          defaultVariant: "off",
          targeting: { if: [{ $ref: "isStaff" }, "on", "off"] },
        },
      },
      $evaluators: { isStaff: migratedFlagdFile.$evaluators.isStaff },
    });
    const exported = exportFlagdFile([...staffOnly, ...imported()]);
    expect(Object.keys(exported.$evaluators ?? {})).toEqual(["isBeta", "isStaff"]);
    const staff = { targetingKey: "x", email: "a@example.com" };
    expect(answers(loadStrictly(exported), staff)["New.Checkout_Flag"]).toMatchObject({ value: true });
  });

  it("exports a flag with only a defaultValue as flagd's static flag", () => {
    const spec = { type: "integer", defaultValue: "7", delivery } as const;
    const exported = exportFlagdFile([{ name: "limit", spec }]);
    expect(exported.flags).toEqual({
      limit: { state: "ENABLED", defaultVariant: "default", variants: { default: 7 } },
    });
    expect(answers(loadStrictly(exported), {})["limit"]).toMatchObject({ value: 7, reason: "STATIC" });
  });
});
