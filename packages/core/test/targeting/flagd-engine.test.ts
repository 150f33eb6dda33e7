import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FeatureFlag, type Flag } from "@openfeature/flagd-core";
import {
  compileFlag,
  compileFlagLenient,
  evaluateFlag,
  flagdFlagOf,
  type EvaluatedSpec,
} from "../../src/targeting/flagd.ts";
import { interpretedTargetingOf, ruleEngineOf } from "../../src/targeting/flagd-engine.ts";

const SILENT = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} };

/** A targeted flag with rule `targeting`, two variants. */
function targeted(targeting: Record<string, unknown>): EvaluatedSpec {
  return { type: "string", defaultValue: "a", variants: { a: "a", b: "b" }, defaultVariant: "a", targeting };
}

const RULES: Record<string, unknown>[] = [
  {
    fractional: [
      ["a", 50],
      ["b", 50],
    ],
  },
  { fractional: [{ cat: [{ var: "$flagd.flagKey" }, { var: "tenant" }] }, ["a", 10], ["b", 90]] },
  { if: [{ in: [{ var: "tenant" }, ["t-1", "t-2"]] }, "b", "a"] },
  {
    if: [
      { starts_with: [{ var: "email" }, "ada"] },
      "b",
      { ends_with: [{ var: "email" }, ".org"] },
      "a",
      null,
    ],
  },
  { if: [{ sem_ver: [{ var: "version" }, ">=", "1.2.0"] }, "b", "a"] },
  { if: [{ "==": [{ var: "missing" }, 1] }, "absent", "a"] },
];

describe("one rule engine for every flag", () => {
  it("flags compiled either way, with different rules, evaluate on the same engine, which has flagd's operators", () => {
    const engines = RULES.flatMap((rule, n) => [
      compileFlagLenient(`lenient-${n}`, targeted(rule)),
      compileFlag(`parsed-${n}`, targeted(rule), true),
    ]).map((compiled) => (compiled.ok ? ruleEngineOf(compiled.flag) : undefined));
    expect(engines[0]).toBeDefined();
    for (const engine of engines) expect(engine).toBe(engines[0]);
    expect(Object.keys((engines[0] as { methods: object }).methods)).toEqual(
      expect.arrayContaining(["fractional", "sem_ver", "starts_with", "ends_with"]),
    );
    const plain = compileFlagLenient("plain", { type: "integer", defaultValue: "1" });
    expect(plain.ok && ruleEngineOf(plain.flag)).toBe(undefined);
  });

  it("answers what each flag's own flagd-core engine answers, past the optimizer's 500 new rules (seed printed on failure)", () => {
    // 600 distinct rules first: the engine's optimizer would stop planning after 500.
    for (let i = 0; i < 600; i++) {
      const compiled = compileFlagLenient(
        "warm",
        targeted({ if: [{ in: [{ var: "tenant" }, [`t-${i}`]] }, "b", "a"] }),
      );
      evaluateFlag("warm", compiled, { tenant: "t-1" });
    }
    const own = RULES.map(
      (rule) =>
        new FeatureFlag("f", JSON.parse(JSON.stringify(flagdFlagOf(targeted(rule)))) as Flag, SILENT, {
          disableDynamicCodeGeneration: true,
        }),
    );
    const shared = RULES.map((rule) => compileFlagLenient("f", targeted(rule)));
    expect(ruleEngineOf(own[0] as FeatureFlag)).not.toBe(shared[0]?.ok && ruleEngineOf(shared[0].flag));
    fc.assert(
      fc.property(
        fc.nat(RULES.length - 1),
        fc.record({
          targetingKey: fc.string(),
          tenant: fc.constantFrom("t-1", "t-2", "t-3"),
          email: fc.constantFrom("ada@x.org", "bob@x.com", "x@y.org"),
          version: fc.constantFrom("1.1.9", "1.2.0", "2.0.0-rc.1", "nonsense"),
        }),
        (n, context) => {
          const ours = evaluateFlag("f", shared[n] as ReturnType<typeof compileFlagLenient>, context);
          const theirs = evaluateFlag("f", { ok: true, flag: own[n] as FeatureFlag }, context);
          expect(ours).toEqual(theirs);
        },
      ),
      { numRuns: 2000 },
    );
    const engine = shared[0]?.ok ? ruleEngineOf(shared[0].flag) : undefined;
    expect(engine).toMatchObject({ disableInterpretedOptimization: false });
  });

  it("refuses, with the reason, flagd-core internals of another shape", () => {
    const flag = new FeatureFlag(
      "f",
      JSON.parse(JSON.stringify(flagdFlagOf(targeted({ if: [true, "b", "a"] })))) as Flag,
      SILENT,
      { disableDynamicCodeGeneration: true },
    );
    const internals = flag as unknown as { _targeting: { _engine: unknown; _useInterpreter: boolean } };
    internals._targeting._engine = { run: () => null };
    expect(() => interpretedTargetingOf(flag)).toThrow(
      /flagd-core's Targeting is not the shape .*_engine.optimizedMap is not a WeakMap.*flagd-core 4\.0\.1/,
    );
    internals._targeting._useInterpreter = false;
    expect(() => interpretedTargetingOf(flag)).toThrow(/_useInterpreter is not true/);
  });
});
