/**
 * The write-time rules of a flag's variants, defaultVariant, targeting and evaluators: a rule
 * that flagd-core would refuse, or that names a variant the flag does not have, is refused when
 * written (400, naming the field), never found at evaluation time. docs/targeting.md, "Limits".
 */
import { defaultValueProblem } from "../flags/values.ts";
import { compileFlag, evaluateFlag, refsOf, type EvaluatedSpec } from "./flagd.ts";
import { ruleCostProblem } from "./targeting-cost.ts";

import { fieldPath, type FieldError } from "../schema/validation.ts";

/** Largest targeting rule plus evaluators, as JSON text: a rule is logic, not data. */
export const TARGETING_MAX_BYTES = 64 * 1024;
/** Deepest nesting of a rule; real rules are a few levels deep, and depth costs stack. */
export const TARGETING_MAX_DEPTH = 64;
export const VARIANTS_MAX = 128;
export const VARIANT_NAME_MAX = 128;
export const EVALUATORS_MAX = 32;
/** Integers of a flag with variants: flagd evaluates numbers as doubles, exact to 2^53 − 1. */
const VARIANT_INTEGER = /^-?(0|[1-9][0-9]{0,14})$/;
export const VARIANT_INTEGER_MESSAGE =
  "must be an integer of at most 15 digits in a flag with variants (flagd evaluates numbers as doubles)";

/** Depth of a JSON value, counted without recursion past `limit` (a hostile rule may be 10⁶ deep). */
export function jsonDepthExceeds(value: unknown, limit: number): boolean {
  let level: unknown[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    if (depth > limit) return true;
    const next: unknown[] = [];
    for (const node of level) {
      // One push per item: spreading an array of 10⁵ items overflows the stack.
      if (typeof node === "object" && node !== null) for (const item of Object.values(node)) next.push(item);
    }
    level = next;
  }
  return false;
}

/** The evaluator names a rule refers to with {"$ref": name}, at any depth. */
/** The first `$ref` cycle among evaluators, as the names along it, or undefined. */
export function refCycle(evaluators: Readonly<Record<string, unknown>>): string[] | undefined {
  const done = new Set<string>();
  const visit = (name: string, path: string[]): string[] | undefined => {
    if (path.includes(name)) return [...path.slice(path.indexOf(name)), name];
    if (done.has(name) || !(name in evaluators)) return undefined;
    for (const next of refsOf(evaluators[name])) {
      const cycle = visit(next, [...path, name]);
      if (cycle) return cycle;
    }
    done.add(name);
    return undefined;
  };
  for (const name of Object.keys(evaluators)) {
    const cycle = visit(name, []);
    if (cycle) return cycle;
  }
  return undefined;
}

/** Variant names a rule returns as literals: `if` results and `fractional` buckets. */
export function literalVariants(rule: unknown, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(rule)) {
    for (const item of rule) literalVariants(item, found);
    return found;
  }
  if (typeof rule !== "object" || rule === null) return found;
  for (const [operator, args] of Object.entries(rule)) {
    if (operator === "if" && Array.isArray(args)) {
      args.forEach((arg, index) => {
        const isResult = index % 2 === 1 || (index === args.length - 1 && index % 2 === 0 && index > 0);
        if (isResult && typeof arg === "string") found.add(arg);
        else literalVariants(arg, found);
      });
    } else if (operator === "fractional" && Array.isArray(args)) {
      for (const bucket of args) {
        if (Array.isArray(bucket) && typeof bucket[0] === "string") found.add(bucket[0]);
        else literalVariants(bucket, found);
      }
    } else literalVariants(args, found);
  }
  return found;
}

function variantErrors(spec: EvaluatedSpec, prefix: string): FieldError[] {
  const errors: FieldError[] = [];
  const variants = spec.variants;
  if (variants === undefined) {
    if (spec.defaultVariant !== undefined)
      errors.push({ field: fieldPath(prefix, "defaultVariant"), message: "needs variants to name one of" });
    if (spec.targeting !== undefined)
      errors.push({
        field: fieldPath(prefix, "targeting"),
        message: "needs variants: a rule chooses one of the flag's variants",
      });
    return errors;
  }
  for (const [name, text] of Object.entries(variants)) {
    const field = fieldPath(prefix, `variants.${name}`);
    const problem = defaultValueProblem(spec.type, text);
    if (problem !== undefined) errors.push({ field, message: problem });
    else if (spec.type === "integer" && !VARIANT_INTEGER.test(text))
      errors.push({ field, message: VARIANT_INTEGER_MESSAGE });
    else if (spec.type === "json" && !isJsonObjectText(text))
      errors.push({ field, message: "must be a JSON object in a flag with variants (flagd's object flags)" });
  }
  const names = Object.keys(variants);
  if (spec.defaultVariant === undefined) {
    errors.push({
      field: fieldPath(prefix, "defaultVariant"),
      message: "is required when variants are given",
    });
  } else if (!(spec.defaultVariant in variants)) {
    errors.push({
      field: fieldPath(prefix, "defaultVariant"),
      message: `must name one of the variants (${names.join(", ")})`,
    });
  } else if (variants[spec.defaultVariant] !== spec.defaultValue) {
    errors.push({
      field: fieldPath(prefix, "defaultValue"),
      message: `must equal variants.${spec.defaultVariant} (the default variant's value is the flag's defaultValue)`,
    });
  }
  return errors;
}

function isJsonObjectText(text: string): boolean {
  const value: unknown = JSON.parse(text);
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function ruleErrors(spec: EvaluatedSpec, prefix: string): FieldError[] {
  const parts: [string, unknown][] = [];
  if (spec.targeting !== undefined) parts.push(["targeting", spec.targeting]);
  for (const [name, rule] of Object.entries(spec.evaluators ?? {})) parts.push([`evaluators.${name}`, rule]);
  for (const [field, rule] of parts) {
    if (jsonDepthExceeds(rule, TARGETING_MAX_DEPTH))
      return [
        { field: fieldPath(prefix, field), message: `is nested deeper than ${TARGETING_MAX_DEPTH} levels` },
      ];
  }
  const size = new TextEncoder().encode(
    JSON.stringify([spec.targeting ?? null, spec.evaluators ?? null]),
  ).length;
  if (size > TARGETING_MAX_BYTES) {
    const field = spec.targeting !== undefined ? "targeting" : "evaluators";
    return [
      {
        field: fieldPath(prefix, field),
        message: `targeting and evaluators are ${size} bytes of JSON, more than the ${TARGETING_MAX_BYTES} allowed`,
      },
    ];
  }
  const evaluators = spec.evaluators ?? {};
  const cycle = refCycle(evaluators);
  if (cycle) {
    return [
      {
        field: fieldPath(prefix, `evaluators.${cycle[0]}`),
        message: `refers to itself through $ref (${cycle.join(" → ")})`,
      },
    ];
  }
  const errors: FieldError[] = [];
  for (const [field, rule] of parts) {
    for (const ref of refsOf(rule)) {
      if (!(ref in evaluators))
        errors.push({
          field: fieldPath(prefix, field),
          message: `$ref "${ref}" names no evaluator of the flag`,
        });
    }
  }
  if (errors.length > 0) return errors;
  // Before anything expands a $ref or evaluates: what the rules cost as flagd-core builds them.
  const cost = ruleCostProblem(spec.targeting, spec.evaluators);
  if (cost !== undefined) return [{ field: fieldPath(prefix, cost.field), message: cost.message }];
  if (spec.variants === undefined) return errors;
  const variants = spec.variants;
  for (const [field, rule] of parts) {
    for (const name of literalVariants(rule)) {
      if (!(name in variants))
        errors.push({
          field: fieldPath(prefix, field),
          message: `returns variant "${name}", which the flag does not have (variants: ${Object.keys(variants).join(", ")})`,
        });
    }
  }
  return errors;
}

/** flagd-core's own verdict: its schemas (strict), then building the rule. */
function flagdErrors(key: string, spec: EvaluatedSpec, prefix: string): FieldError[] {
  const compiled = compileFlag(key, spec, true);
  const evaluation = evaluateFlag(key, compiled, {});
  if (evaluation.errorCode !== "PARSE_ERROR") return [];
  const field = spec.targeting !== undefined ? "targeting" : "variants";
  return [
    { field: fieldPath(prefix, field), message: `flagd refuses it: ${evaluation.errorDetails ?? "invalid"}` },
  ];
}

/** What the schema cannot say of names and metadata (its maps' values are checked by it). */
function namingErrors(spec: EvaluatedSpec, prefix: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const [map, names] of [
    ["variants", Object.keys(spec.variants ?? {})],
    ["evaluators", Object.keys(spec.evaluators ?? {})],
  ] as const) {
    for (const name of names) {
      if (name.length === 0 || name.length > VARIANT_NAME_MAX)
        errors.push({
          field: fieldPath(prefix, `${map}.${name}`),
          message: `names must be 1 to ${VARIANT_NAME_MAX} characters`,
        });
    }
  }
  for (const [name, value] of Object.entries(spec.metadata ?? {})) {
    const scalar = typeof value === "string" || typeof value === "boolean" || Number.isFinite(value);
    if (!scalar || (typeof value === "string" && value.length > 1024))
      errors.push({
        field: fieldPath(prefix, `metadata.${name}`),
        message: "must be a string (at most 1024 characters), a number or a boolean",
      });
  }
  return errors;
}

/**
 * Problems of the targeting fields of a spec whose shape is already valid. Each later check
 * assumes the earlier ones passed, so every message is about one field.
 */
export function targetingErrors(key: string, spec: EvaluatedSpec, prefix: string): FieldError[] {
  const naming = namingErrors(spec, prefix);
  if (naming.length > 0) return naming;
  if (spec.variants === undefined && spec.targeting === undefined && spec.defaultVariant === undefined) {
    if (spec.evaluators !== undefined)
      return [
        { field: fieldPath(prefix, "evaluators"), message: "needs a targeting rule that refers to them" },
      ];
    return [];
  }
  const variantProblems = variantErrors(spec, prefix);
  if (variantProblems.length > 0) return variantProblems;
  const ruleProblems = ruleErrors(spec, prefix);
  if (ruleProblems.length > 0) return ruleProblems;
  return flagdErrors(key, spec, prefix);
}
