// flagd flag-definition files as OpenFeature Operator users have them: upper-case and dotted
// keys, shared $evaluators, fractional rollouts with default and custom bucketing.
import { FlagdCore, MemoryStorage } from "@openfeature/flagd-core";
import type { EvaluationContext } from "@openfeature/core";

export const migratedFlagdFile = {
  $schema: "https://flagd.dev/schema/v0/flags.json",
  metadata: { flagSetId: "shop" },
  // flagd-core resolves a $ref inside an evaluator only when the evaluator it names comes later.
  $evaluators: {
    isBeta: { or: [{ $ref: "isStaff" }, { in: [{ var: "tenant" }, ["acme", "globex"]] }] },
    isStaff: { ends_with: [{ var: "email" }, "@example.com"] },
    unused: { "==": [1, 1] },
  },
  flags: {
    "New.Checkout_Flag": {
      state: "ENABLED",
      variants: { on: true, off: false },
      defaultVariant: "off",
      targeting: {
        if: [
          { $ref: "isBeta" },
          "on",
          {
            fractional: [
              ["on", 25],
              ["off", 75],
            ],
          },
        ],
      },
      metadata: { owner: "checkout" },
    },
    BANNER_COLOR: {
      state: "ENABLED",
      variants: { red: "red", green: "green", blue: "blue" },
      defaultVariant: "blue",
      targeting: {
        fractional: [
          { cat: [{ var: "$flagd.flagKey" }, { var: "email" }] },
          ["red", 50],
          ["green", 30],
          ["blue", 20],
        ],
      },
    },
    "max-items": {
      state: "ENABLED",
      variants: { small: 10, big: 20 },
      defaultVariant: "small",
      targeting: { if: [{ sem_ver: [{ var: "version" }, ">=", "2.0.0"] }, "big", "small"] },
    },
    "ui.Theme": {
      state: "DISABLED",
      variants: { dark: { bg: "#000" }, light: { bg: "#fff" } },
      defaultVariant: "light",
      targeting: { if: [{ starts_with: [{ var: "locale" }, "de"] }, "dark", null] },
    },
    static_limit: { state: "ENABLED", variants: { only: 5 }, defaultVariant: "only" },
  },
};

/** `count` contexts with every attribute the rules above read (targetingKey `user-<i>`). */
export function sampleContexts(count: number): EvaluationContext[] {
  const tenants = ["acme", "globex", "initech", "umbrella"];
  return Array.from({ length: count }, (_, i) => ({
    targetingKey: `user-${i}`,
    email: i % 7 === 0 ? `u${i}@example.com` : `u${i}@mail.test`,
    tenant: tenants[i % tenants.length] ?? "",
    version: `${i % 3}.${i % 5}.0`,
    locale: i % 2 === 0 ? "de-DE" : "en-US",
  }));
}

/** flagd-core warns of rules it compiles at load; the answers below say all that matters. */
const QUIET = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} };

/** A flagd file loaded as flagd loads it: strictly (its published schemas), else it throws. */
export function loadStrictly(file: unknown): FlagdCore {
  const storage = new MemoryStorage(QUIET);
  storage.setConfigurations(JSON.stringify(file), true);
  return new FlagdCore(storage);
}

/** Each flag's answer for a context: value, variant, reason and error code. */
export function answers(core: FlagdCore, context: EvaluationContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, flag] of core.getFlags()) {
    const result = flag.evaluate(context);
    out[key] = {
      state: flag.state,
      value: result.value,
      variant: result.variant,
      reason: result.reason,
      errorCode: result.errorCode,
    };
  }
  return out;
}
