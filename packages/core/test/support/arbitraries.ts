// Random labels, deliveries and flags (targeted ones among them) for the property tests that plan
// delivery (delivery-properties.test.ts, trim.test.ts): one definition, so both draw the same kinds
// of flags.
import fc from "fast-check";
import type { FeatureFlagResource, FeatureFlagSpec } from "../../src/index.ts";
import { flag } from "./workloads.ts";

export const labels = fc.dictionary(fc.constantFrom("app", "tier"), fc.constantFrom("web", "api"), {
  maxKeys: 2,
});

const selector = fc
  .dictionary(fc.constantFrom("app", "tier"), fc.constantFrom("web", "api"), { minKeys: 1, maxKeys: 2 })
  .map((matchLabels) => ({ matchLabels }));

/** Any of the three deliveries; `envNames` and `keys` are the variable names and ConfigMap keys drawn from. */
export function deliveries(
  envNames: readonly string[],
  keys: readonly string[],
): fc.Arbitrary<FeatureFlagSpec["delivery"]> {
  return fc.oneof(
    fc.record({
      envVar: fc.record({ name: fc.constantFrom(...envNames), selector }, { requiredKeys: ["selector"] }),
    }),
    fc.record({
      configMap: fc.record({
        configMapName: fc.constantFrom("cm-a", "cm.b"),
        key: fc.constantFrom(...keys),
        selector,
      }),
    }),
    fc.record({
      sidecar: fc.record({ port: fc.constantFrom(8514, 9000), selector }, { requiredKeys: ["selector"] }),
    }),
  );
}

/** Rules over a workload's own context (labels, kind, name) and a split, choosing variant "on" or "off". */
export const WORKLOAD_RULES: Record<string, unknown>[] = [
  { if: [{ "==": [{ var: "labels.app" }, "web"] }, "on", "off"] },
  { if: [{ in: [{ var: "kind" }, ["Deployment", "ConfigMap"]] }, "on", "off"] },
  { if: [{ "==": [{ var: "name" }, "w2"] }, "on", null] },
  {
    fractional: [
      ["on", 50],
      ["off", 50],
    ],
  },
];

/** Up to `names.length` json flags of distinct names, some disabled, some targeted by one of `rules`. */
export function flagLists(options: {
  names: readonly string[];
  values: readonly string[];
  delivery: fc.Arbitrary<FeatureFlagSpec["delivery"]>;
  rules: readonly Record<string, unknown>[];
}): fc.Arbitrary<FeatureFlagResource[]> {
  return fc
    .uniqueArray(
      fc.record({
        name: fc.constantFrom(...options.names),
        delivery: options.delivery,
        enabled: fc.boolean(),
        value: fc.constantFrom(...options.values),
        targeting: fc.option(fc.constantFrom(...options.rules), { nil: undefined }),
      }),
      { selector: (f) => f.name, maxLength: options.names.length },
    )
    .map((list) =>
      list.map((f) =>
        flag(f.name, f.delivery, {
          type: "json",
          defaultValue: f.value,
          enabled: f.enabled,
          ...(f.targeting === undefined
            ? {}
            : { variants: { on: '"on"', off: f.value }, defaultVariant: "off", targeting: f.targeting }),
        }),
      ),
    );
}
