/**
 * One rule engine for every targeted flag (docs/targeting.md, "One rule engine for all flags").
 * flagd-core 4.0.1 gives each flag's `Targeting` a json-logic-engine `LogicEngine` of its own,
 * with flagd's four methods added: ~1.5 KB of heap a flag, 7 MB for 5,000 evaluated rules, and
 * its API offers no way to share one. The engine holds its methods and, per rule object, the plan
 * its optimizer made; nothing of an evaluation. So every compiled flag is pointed at one engine,
 * built by flagd-core's own Targeting, and still evaluates through flagd-core's
 * `Targeting.evaluate`. This reaches into flagd-core's internals: the version is pinned in
 * packages/core/package.json, and a change of their shape fails the first import.
 */
import { FeatureFlag, type Flag } from "@openfeature/flagd-core";
import type { Logger } from "@openfeature/core";

/** What this module relies on of json-logic-engine 5.0.7's LogicEngine. */
interface RuleEngine {
  run: (logic: unknown, data: unknown) => unknown;
  methods: Record<string, unknown>;
  optimizedMap: WeakMap<object, unknown>;
  missesSinceSeen: number;
}

/** What this module relies on of flagd-core 4.0.1's Targeting in interpreter mode. */
interface InterpretedTargeting {
  _useInterpreter: true;
  _engine: RuleEngine;
  _logic: unknown;
}

/** flagd's own operators, which its engine must have. */
const FLAGD_METHODS = ["fractional", "sem_ver", "starts_with", "ends_with"];

/**
 * The interpreted Targeting of a compiled flag, undefined for a flag without one (no targeting,
 * or a rule flagd-core refused). Throws when flagd-core's internals are not the shape this module
 * was written for: sharing must never silently stop, nor touch something else.
 */
export function interpretedTargetingOf(flag: FeatureFlag): InterpretedTargeting | undefined {
  const targeting: unknown = (flag as unknown as { _targeting?: unknown })._targeting;
  if (targeting === undefined) return undefined;
  const problem = targetingShapeProblem(targeting);
  if (problem !== undefined) {
    throw new Error(
      `@openfeature/flagd-core's Targeting is not the shape svc shares one rule engine through ` +
        `(${problem}); svc is written for flagd-core 4.0.1 (packages/core/src/targeting/flagd-engine.ts)`,
    );
  }
  return targeting as InterpretedTargeting;
}

function targetingShapeProblem(targeting: unknown): string | undefined {
  if (typeof targeting !== "object" || targeting === null) return "_targeting is not an object";
  const { _useInterpreter, _engine, _logic } = targeting as Partial<Record<string, unknown>>;
  if (_useInterpreter !== true) return "_useInterpreter is not true";
  if (_logic === undefined) return "_logic is missing";
  if (typeof _engine !== "object" || _engine === null) return "_engine is not an object";
  const engine = _engine as Partial<Record<keyof RuleEngine, unknown>>;
  if (typeof engine.run !== "function") return "_engine.run is not a function";
  if (!(engine.optimizedMap instanceof WeakMap)) return "_engine.optimizedMap is not a WeakMap";
  if (typeof engine.missesSinceSeen !== "number") return "_engine.missesSinceSeen is not a number";
  if (typeof engine.methods !== "object" || engine.methods === null) return "_engine.methods is missing";
  const missing = FLAGD_METHODS.filter((name) => !Object.hasOwn(engine.methods as object, name));
  return missing.length > 0 ? `_engine lacks flagd's ${missing.join(", ")}` : undefined;
}

/**
 * The engine of a first flag, compiled here as compileFlag does (interpreted). Its optimizer
 * keeps a plan per rule object and stops planning for good after 500 rules in a row it had not
 * seen, a guard for callers that pass fresh rules each time; one bulk evaluation of a namespace
 * shows the shared engine that many long-lived rules, where each flag's own engine never counted
 * past one. The count is held at 0, so every rule keeps flagd-core's optimized path, as before.
 */
function firstEngine(logger: Logger, options: { disableDynamicCodeGeneration: boolean }): RuleEngine {
  const probe: Flag = { state: "ENABLED", defaultVariant: "off", variants: { on: true, off: false } };
  (probe as { targeting?: unknown }).targeting = {
    fractional: [
      ["on", 50],
      ["off", 50],
    ],
  };
  const targeting = interpretedTargetingOf(new FeatureFlag("probe", probe, logger, options));
  if (targeting === undefined) throw new Error("flagd-core kept no Targeting for a valid rule");
  const engine = targeting._engine;
  Object.defineProperty(engine, "missesSinceSeen", { get: () => 0, set: () => {} });
  return engine;
}

/** Makes compiled flags evaluate on one engine, flagd's, made by flagd-core's first Targeting. */
export function ruleEngineSharer(
  logger: Logger,
  options: { disableDynamicCodeGeneration: boolean },
): (flag: FeatureFlag) => FeatureFlag {
  const shared = firstEngine(logger, options);
  return (flag) => {
    const targeting = interpretedTargetingOf(flag);
    if (targeting !== undefined) targeting._engine = shared;
    return flag;
  };
}

/** The engine a compiled flag evaluates on (tests: flags share one). */
export function ruleEngineOf(flag: FeatureFlag): object | undefined {
  return interpretedTargetingOf(flag)?._engine;
}
