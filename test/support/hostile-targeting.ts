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
