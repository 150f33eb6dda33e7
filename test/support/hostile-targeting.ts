// Hostile targeting fields, evaluation contexts and flagd files as fast-check arbitraries, for
// the hostile-input and fuzz suites: what a flag's rules, a context or an imported file should
// never be, and must never crash a server with.
import fc from "fast-check";

/** `{"!": [{"!": [… true]}]}`, `depth` levels of operators deep: deeper than any limit of svc's. */
function nestedRule(depth: number): unknown {
  let rule: unknown = true;
  for (let i = 0; i < depth; i++) rule = { "!": [rule] };
  return rule;
}

/** JSON Logic a rule should not be: unknown operators, unknown variants, refs to nothing or to prototypes, deep. */
const hostileRule = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom<unknown>(
    { no_such_operator: [1] },
    { if: [true, "no-such-variant", "off"] },
    {
      fractional: [
        ["on", -1],
        ["off", 1e308],
      ],
    },
    { $ref: "__proto__" },
    { $ref: "constructor" },
    { var: "__proto__.polluted" },
    { sem_ver: [{ var: "v" }, "~", { var: "constructor" }] },
    { "==": [{ var: "$flagd.flagKey" }, { var: "$flagd.timestamp" }] },
  ),
  fc.integer({ min: 65, max: 2000 }).map(nestedRule),
  // What costs without bound once evaluated (issue 37): a refused rule, never a stall.
  fc.integer({ min: 2, max: 5 }).map((levels) => nestedMap(levels, 60)),
  fc.constant(hugeArrayRule(150_000)),
);

/** The targeting fields of a flag body, each right, wrong in type, or hostile. */
export const hostileTargetingFields = {
  key: fc.oneof(
    fc.constantFrom("seed", "Seed.Key", "a\u0000b", "__proto__", ""),
    fc.string({ maxLength: 300 }),
  ),
  variants: fc.oneof(
    fc.constant({ on: "true", off: "false" }),
    fc.dictionary(
      fc.oneof(fc.constantFrom("__proto__", "constructor", ""), fc.string({ maxLength: 8 })),
      fc.oneof(fc.string({ maxLength: 8 }), fc.boolean(), fc.integer()),
    ),
    fc.jsonValue({ maxDepth: 2 }),
  ),
  defaultVariant: fc.oneof(
    fc.constantFrom("on", "off", "__proto__", "constructor", "toString"),
    fc.string({ maxLength: 8 }),
  ),
  targeting: hostileRule,
  evaluators: fc.oneof(
    fc.constant({ a: { $ref: "b" }, b: { $ref: "a" } }),
    fc.integer({ min: 14, max: 30 }).map((depth) => refChain(depth).evaluators),
    fc.dictionary(
      fc.oneof(fc.constantFrom("__proto__", "constructor"), fc.string({ maxLength: 6 })),
      hostileRule,
      { maxKeys: 3 },
    ),
  ),
  metadata: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant({ owner: { nested: true } })),
};

/** An evaluation context: any JSON, or one shaped like OpenFeature's with hostile values. */
export const hostileContext = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.record(
    {
      targetingKey: fc.oneof(fc.string({ maxLength: 300 }), fc.integer(), fc.constant(null)),
      ["__proto__"]: fc.constant({ polluted: true }),
      email: fc.oneof(fc.emailAddress(), fc.jsonValue({ maxDepth: 2 })),
    },
    { requiredKeys: [] },
  ),
);

/** A flagd file: any JSON, or flags of hostile variants and rules, with a $ref cycle. */
export const hostileFlagdFile = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc
    .dictionary(
      fc.oneof(
        fc.constantFrom("New.Flag", "__proto__", "constructor", "", "a".repeat(300)),
        fc.string({ maxLength: 20 }),
      ),
      fc.record(
        {
          state: fc.constantFrom("ENABLED", "DISABLED", "ON"),
          variants: hostileTargetingFields.variants,
          defaultVariant: hostileTargetingFields.defaultVariant,
          targeting: hostileRule,
        },
        { requiredKeys: [] },
      ),
      { maxKeys: 4 },
    )
    .map((flags) => ({ flags, $evaluators: { a: { $ref: "b" }, b: { $ref: "a" } } })),
);

/**
 * Evaluators that each use the next twice, `depth` deep (issue 37): under 1 KB as written at 14
 * levels, 2^depth copies of the last once flagd-core has replaced every `$ref` by its text.
 */
export function refChain(depth: number): {
  targeting: Record<string, unknown>;
  evaluators: Record<string, Record<string, unknown>>;
} {
  const evaluators: Record<string, Record<string, unknown>> = {};
  for (let i = 0; i < depth; i++) {
    const next = i + 1 < depth ? { $ref: `e${i + 1}` } : { var: "email" };
    evaluators[`e${i}`] = { cat: [next, next] };
  }
  return { targeting: { if: [{ "==": [{ $ref: "e0" }, "x"] }, "on", "off"] }, evaluators };
}

/**
 * `map` nested `levels` deep, each over a literal array of `items` and joining each item to what
 * the level below made: items^levels body runs (4 × 60, under 1 KB: 13 million).
 */
export function nestedMap(levels: number, items: number): Record<string, unknown> {
  const array = Array.from({ length: items }, (_, i) => i);
  let rule: unknown = { "+": [{ var: "" }, 1] };
  for (let i = 0; i < levels; i++) rule = { map: [array, { cat: [{ var: "" }, rule] }] };
  return { if: [{ in: ["x", rule] }, "on", "off"] };
}

/** A rule holding one literal array of `items` items (an `in` list past every bound). */
export function hugeArrayRule(items: number): Record<string, unknown> {
  return { if: [{ in: [{ var: "id" }, Array.from({ length: items }, () => 0)] }, "on", "off"] };
}

/** The over-bound rules of issue 37, as targeting fields of a flag with variants on/off. */
export const overBoundRules: [
  string,
  { targeting: Record<string, unknown>; evaluators?: Record<string, unknown> },
][] = [
  ["a $ref chain 14 deep", refChain(14)],
  ["a $ref chain 20 deep", refChain(20)],
  ["a $ref chain 30 deep", refChain(30)],
  ["map nested 4 deep over 60 items", { targeting: nestedMap(4, 60) }],
];
