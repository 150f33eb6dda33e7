import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateFlagSpec } from "../../src/index.ts";
import { CONTEXT_LIMITS, contextProblem } from "../../src/targeting/evaluation-context.ts";
import { RULE_LIMITS, ruleCostProblem, ruleCosts } from "../../src/targeting/targeting-cost.ts";
import {
  hugeArrayRule,
  nestedMap,
  overBoundRules,
  refChain,
} from "../../../../test/support/hostile-targeting.ts";
import { migratedFlagdFile } from "../../../../test/support/flagd-files.ts";

/** What flagd-core builds: every `{"$ref": name}` replaced by the evaluator, recursively. */
function expand(rule: unknown, evaluators: Record<string, unknown>): unknown {
  if (Array.isArray(rule)) return rule.map((item) => expand(item, evaluators));
  if (typeof rule !== "object" || rule === null) return rule;
  const keys = Object.keys(rule);
  const ref = (rule as Record<string, unknown>)["$ref"];
  if (keys.length === 1 && typeof ref === "string") return expand(evaluators[ref], evaluators);
  return Object.fromEntries(Object.entries(rule).map(([k, v]) => [k, expand(v, evaluators)]));
}

function depthOf(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  const items = Object.values(value);
  return items.length === 0 ? 0 : 1 + Math.max(...items.map(depthOf));
}

function operationsOf(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, item) => n + operationsOf(item), 0);
  if (typeof value !== "object" || value === null) return 0;
  const entries = Object.values(value);
  return (Object.keys(value).length === 1 ? 1 : 0) + entries.reduce((n: number, v) => n + operationsOf(v), 0);
}

/** Rules of flagd's scalar operators over vars, literals and `$ref`s to the evaluators after them. */
const leaf = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 6 }).map((name) => ({ var: name })),
);
const ruleOver = (refs: string[]) =>
  fc.letrec<{ rule: unknown }>((tie) => ({
    rule: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      refs.length > 0 ? fc.constantFrom(...refs).map((name) => ({ $ref: name })) : leaf,
      leaf,
      fc
        .tuple(fc.constantFrom("and", "or", "cat", "==", "if", "in"), fc.array(tie("rule"), { maxLength: 3 }))
        .map(([op, args]) => ({ [op]: args })),
      fc.array(tie("rule"), { maxLength: 3 }),
    ),
  })).rule;

/** A targeting rule and up to 5 evaluators, each referring only to later ones (no cycles). */
const rulesWithEvaluators = fc.integer({ min: 0, max: 5 }).chain((count) => {
  const names = Array.from({ length: count }, (_, i) => `e${i}`);
  return fc.record({
    targeting: ruleOver(names),
    evaluators: fc
      .tuple(...names.map((_, i) => ruleOver(names.slice(i + 1))))
      .map((rules: unknown[]): Record<string, unknown> =>
        Object.fromEntries(rules.map((rule, i) => [names[i] ?? "", rule])),
      ),
  });
});

describe("the cost of rules after $ref expansion, measured without expanding", () => {
  it("equals the expanded rule's JSON size, operations and depth", () => {
    fc.assert(
      fc.property(rulesWithEvaluators, ({ targeting, evaluators }) => {
        const costs = ruleCosts(targeting, evaluators);
        const parts: [string, unknown][] = [["targeting", targeting]];
        for (const [name, rule] of Object.entries(evaluators)) parts.push([`evaluators.${name}`, rule]);
        for (const [field, rule] of parts) {
          const expanded = expand(rule, evaluators);
          expect(costs[field]?.bytes).toBe(JSON.stringify(expanded).length);
          expect(costs[field]?.operations).toBe(operationsOf(expanded));
          expect(costs[field]?.depth).toBe(depthOf(expanded));
        }
      }),
    );
  });

  it.each(overBoundRules)("refuses %s, naming the bound", (_why, rules) => {
    const problem = ruleCostProblem(rules.targeting, rules.evaluators);
    expect(problem?.field).toMatch(/^(targeting|evaluators\.\w+)$/);
    expect(problem?.message).toMatch(/more than the [\d,]+ allowed/);
  });

  it("measures a 30-deep doubling chain in linear time: 2^30 copies of the last evaluator, counted", () => {
    const { targeting, evaluators } = refChain(30);
    const bytes = ruleCosts(targeting, evaluators)["targeting"]?.bytes ?? 0;
    expect(bytes).toBeGreaterThan(2 ** 30);
    expect(ruleCostProblem(targeting, evaluators)?.message).toContain("expand ($ref) to");
  });

  it("refuses a doubling chain through the API's validation before flagd-core expands it", () => {
    const { targeting, evaluators } = refChain(30);
    const result = validateFlagSpec({
      type: "boolean",
      defaultValue: "false",
      variants: { on: "true", off: "false" },
      defaultVariant: "off",
      targeting,
      evaluators,
      delivery: { sidecar: { selector: { matchLabels: { app: "web" } } } },
    });
    expect(result.ok ? [] : result.errors).toEqual([
      {
        field: "targeting",
        message: expect.stringContaining("bytes of JSON, more than the 65,536 allowed") as string,
      },
    ]);
  });

  it("refuses iterations whose items multiply past the bound, and passes one that does not", () => {
    expect(ruleCostProblem(nestedMap(4, 60), undefined)?.message).toContain("evaluation steps");
    expect(ruleCostProblem(nestedMap(3, 30), undefined)?.message).toContain("evaluation steps");
    expect(ruleCostProblem(nestedMap(2, 30), undefined)).toBeUndefined();
  });

  it("counts an iteration over the context as over its largest array (CONTEXT_LIMITS.values)", () => {
    const some = { some: [{ var: "groups" }, { "==": [{ var: "" }, "admin"] }] };
    expect(ruleCostProblem(some, undefined)).toBeUndefined();
    const nested = { some: [{ var: "groups" }, { some: [{ var: "roles" }, { "==": [{ var: "" }, "x"] }] }] };
    expect(ruleCostProblem(nested, undefined)?.message).toContain("evaluation steps");
  });

  it("counts text read from outside an iteration's item as scanned again per item", () => {
    // 40 ms with a 61 KB context before this was counted: `cat` of the whole array, per item.
    const outer = { some: [{ var: "groups" }, { in: ["zzz", { cat: [{ var: "../../groups" }] }] }] };
    expect(ruleCostProblem(outer, undefined)?.message).toContain("evaluation steps");
    const item = { some: [{ var: "groups" }, { in: ["zzz", { cat: [{ var: "" }, "-x"] }] }] };
    expect(ruleCostProblem(item, undefined)).toBeUndefined();
    const bucketBy = {
      fractional: [{ cat: [{ var: "$flagd.flagKey" }, { var: "email" }] }, ["on", 50], ["off", 50]],
    };
    expect(ruleCostProblem(bucketBy, undefined)).toBeUndefined();
  });

  it("bounds the context's text as the sidecar's 64 KiB body does, for the API too", () => {
    const groups = Array.from({ length: 20 }, () => "x".repeat(CONTEXT_LIMITS.stringLength));
    expect(contextProblem({ groups })).toBe(
      `context has more than ${CONTEXT_LIMITS.characters} characters of text`,
    );
    expect(contextProblem({ groups: groups.slice(0, 15) })).toBeUndefined();
  });

  it("follows what an iteration's items may hold: merging each item with itself, nested, is refused", () => {
    let rule: unknown = [[1, 2, 3, 4, 5, 6, 7, 8]];
    for (let i = 0; i < 12; i++) rule = { map: [rule, { merge: [{ var: "" }, { var: "" }] }] };
    expect(ruleCostProblem(rule, undefined)?.message).toMatch(/evaluation steps/);
  });

  it("refuses a reduce that reads its accumulator twice (doubling per item), not one that reads it once", () => {
    const items = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    const doubling = { reduce: [items, { cat: [{ var: "accumulator" }, { var: "accumulator" }] }, "x"] };
    expect(ruleCostProblem(doubling, undefined)?.message).toContain("accumulator more than once");
    const sum = { reduce: [items, { "+": [{ var: "accumulator" }, { var: "current" }] }, 0] };
    expect(ruleCostProblem(sum, undefined)).toBeUndefined();
  });

  it("refuses an array or a string past its bound, without overflowing the stack", () => {
    expect(ruleCostProblem(hugeArrayRule(150_000), undefined)).toEqual({
      field: "targeting",
      message: `holds an array of 150000 items, more than the ${RULE_LIMITS.arrayItems} allowed`,
    });
    const long = { "==": [{ var: "a" }, "x".repeat(RULE_LIMITS.stringChars + 1)] };
    expect(ruleCostProblem(undefined, { long })?.field).toBe("evaluators.long");
  });

  it("refuses the engine's operators it cannot bound, and leaves unknown ones and $refs to nothing to flagd-core", () => {
    expect(ruleCostProblem({ pipe: [[1], { var: "" }] }, undefined)?.message).toContain('"pipe"');
    // flagd-core refuses to build it (PARSE_ERROR, as flagd answers): nothing to bound.
    expect(ruleCostProblem({ no_such_op: [{ var: "x" }] }, undefined)).toBeUndefined();
    // As a $ref to no evaluator (targetingErrors names it when written).
    expect(ruleCostProblem({ $ref: "absent" }, {})).toBeUndefined();
  });

  it("passes the rules flagd users write (the migrated flagd file)", () => {
    for (const flag of Object.values(migratedFlagdFile.flags)) {
      const targeting = (flag as { targeting?: unknown }).targeting;
      expect(ruleCostProblem(targeting, migratedFlagdFile.$evaluators)).toBeUndefined();
    }
    const allowList = {
      in: [{ var: "email" }, Array.from({ length: 3_000 }, (_, i) => `u${i}@example.com`)],
    };
    expect(ruleCostProblem({ if: [allowList, "on", "off"] }, undefined)).toBeUndefined();
  });
});
