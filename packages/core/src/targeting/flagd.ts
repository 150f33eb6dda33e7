/**
 * A FeatureFlag as flagd sees it, and its evaluation by flagd's own engine
 * (@openfeature/flagd-core): the sidecar, the operator and the API all evaluate through this
 * module, so that svc answers what flagd answers for the same definition and context
 * (docs/targeting.md, "Where svc differs from flagd").
 *
 * No TypeBox and no Node built-ins: the sidecar imports it (`@svc/core/flagd`) and stays small.
 * The dashboard does not bundle it: flagd-core builds rules with `new Function`, which its CSP
 * forbids, so the browser asks the API to evaluate.
 */
import { FeatureFlag, MemoryStorage, type Flag } from "@openfeature/flagd-core";
import type { EvaluationContext, FlagMetadata, JsonValue, Logger } from "@openfeature/core";
import { defaultValueProblem, isEnabled } from "../flags/values.ts";
import { type FlagType } from "../vocabulary.ts";
import { ruleEngineSharer } from "./flagd-engine.ts";

export { isTargeted } from "../flags/values.ts";

/** The fields of a FeatureFlag spec that decide its evaluation. */
export interface EvaluatedSpec {
  type: FlagType;
  defaultValue: string;
  enabled?: boolean | undefined;
  variants?: Record<string, string> | undefined;
  defaultVariant?: string | undefined;
  targeting?: Record<string, unknown> | undefined;
  evaluators?: Record<string, unknown> | undefined;
  metadata?: Record<string, string | number | boolean> | undefined;
}

/** The variant a flag without `variants` evaluates to: its defaultValue under this name. */
export const STATIC_VARIANT = "default";

/** flagd's reasons (OpenFeature's standard ones) and OFREP's error codes. */
export const EVALUATION_REASONS = [
  "STATIC",
  "DEFAULT",
  "TARGETING_MATCH",
  "SPLIT",
  "DISABLED",
  "ERROR",
] as const;
export type EvaluationReason = (typeof EVALUATION_REASONS)[number];
export const EVALUATION_ERROR_CODES = [
  "FLAG_NOT_FOUND",
  "PARSE_ERROR",
  "TARGETING_KEY_MISSING",
  "INVALID_CONTEXT",
  "TYPE_MISMATCH",
  "GENERAL",
] as const;
export type EvaluationErrorCode = (typeof EVALUATION_ERROR_CODES)[number];

/**
 * One flag's evaluation, in OFREP's terms: a success carries value, variant and reason; a
 * failure carries errorCode and errorDetails and no value (the caller's code default applies);
 * a disabled flag carries reason DISABLED and no value.
 */
export interface Evaluation {
  key: string;
  value?: JsonValue;
  variant?: string;
  reason: EvaluationReason;
  errorCode?: EvaluationErrorCode;
  errorDetails?: string;
  metadata: FlagMetadata;
}

/** The typed value of a value's text (`defaultValue` and `variants` hold text, as SPEC.md's flag does). */
export function typedValue(type: FlagType, text: string): JsonValue {
  switch (type) {
    case "boolean":
      return text === "true";
    case "integer":
      return Number(text);
    case "json":
      return JSON.parse(text) as JsonValue;
    case "string":
      return text;
  }
}

/** The text of a typed value of `type`, or undefined when the value is not of that type. */
export function valueText(type: FlagType, value: unknown): string | undefined {
  switch (type) {
    case "boolean":
      return typeof value === "boolean" ? String(value) : undefined;
    case "integer":
      return Number.isSafeInteger(value) ? String(value) : undefined;
    case "string":
      return typeof value === "string" ? value : undefined;
    case "json":
      return value !== undefined ? JSON.stringify(value) : undefined;
  }
}

/**
 * The flag in flagd's definition format. A flag without variants is one variant, STATIC_VARIANT,
 * holding its defaultValue: flagd then answers it with reason STATIC, as svc always has.
 */
export function flagdFlagOf(spec: EvaluatedSpec): Flag {
  const variants = spec.variants ?? { [STATIC_VARIANT]: spec.defaultValue };
  const flag: Flag = {
    state: isEnabled(spec) ? "ENABLED" : "DISABLED",
    defaultVariant: spec.variants === undefined ? STATIC_VARIANT : (spec.defaultVariant ?? STATIC_VARIANT),
    variants: Object.fromEntries(
      Object.entries(variants).map(([name, text]) => [name, typedValueOrText(spec.type, text)]),
    ),
  };
  if (spec.targeting !== undefined) (flag as { targeting?: unknown }).targeting = spec.targeting;
  if (spec.metadata !== undefined) flag.metadata = spec.metadata;
  return flag;
}

/** A value that does not parse as its type stays text; flagd-core then reports it as flagd would. */
function typedValueOrText(type: FlagType, text: string): JsonValue {
  return defaultValueProblem(type, text) === undefined ? typedValue(type, text) : text;
}

/** The evaluator names a rule refers to with `{"$ref": name}`. */
export function refsOf(value: unknown, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) for (const item of value) refsOf(item, found);
  else if (typeof value === "object" && value !== null) {
    const ref = (value as Record<string, unknown>)["$ref"];
    if (typeof ref === "string") found.add(ref);
    for (const item of Object.values(value)) refsOf(item, found);
  }
  return found;
}

/**
 * The evaluators, each before those it refers to: flagd-core replaces `$ref`s one evaluator at a
 * time in file order, so a `$ref` inside an evaluator resolves only when the evaluator it names
 * comes later.
 */
export function referrersFirst<T>(evaluators: Readonly<Record<string, T>>): Record<string, T> {
  // Depth-first, each evaluator after those it refers to; reversed, each comes before them
  // (cycles were refused when the flags were written).
  const postOrder: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name) || !Object.hasOwn(evaluators, name)) return;
    seen.add(name);
    for (const ref of refsOf(evaluators[name])) visit(ref);
    postOrder.push(name);
  };
  Object.keys(evaluators).forEach(visit);
  return Object.fromEntries(postOrder.reverse().map((name) => [name, evaluators[name] as T]));
}

/** flagd-core logs targeting problems at debug level; evaluation reports them in its answer. */
const SILENT: Logger = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} };

/**
 * flagd-core's interpreter, not its compiler: the compiler turns each rule into generated
 * JavaScript (`new Function`), code built from what users wrote. The interpreter runs no
 * generated code, keeps less per flag (bench/RESULTS.md, "Targeting: sidecar memory") and
 * evaluates as fast within ±10 % (0.4–0.8 µs for an `in` then a `fractional`, Node and Bun).
 */
const INTERPRETED = { disableDynamicCodeGeneration: true };

/** Every compiled flag's rule runs on one engine (flagd-engine.ts): 7 MB less for 5,000 rules. */
const shareRuleEngine = ruleEngineSharer(SILENT, INTERPRETED);

/** A flag ready to evaluate, or the reason flagd-core refused its definition. */
export type CompiledFlag = { ok: true; flag: FeatureFlag } | { ok: false; error: string };

/**
 * Parses one flag through flagd-core's own parser: `$ref`s are replaced by the flag's
 * evaluators, and with `strict` the definition is checked against flagd's published schemas
 * (flag and targeting), as flagd does at load time.
 */
export function compileFlag(key: string, spec: EvaluatedSpec, strict: boolean): CompiledFlag {
  const document: Record<string, unknown> = { flags: { [key]: flagdFlagOf(spec) } };
  // Stored maps come back with sorted keys, so the order flagd-core needs is restored here.
  if (spec.evaluators !== undefined) document["$evaluators"] = referrersFirst(spec.evaluators);
  let flag: FeatureFlag | undefined;
  try {
    const storage = new MemoryStorage(SILENT, INTERPRETED);
    storage.setConfigurations(JSON.stringify(document), strict);
    flag = storage.getFlag(key);
  } catch (error) {
    return { ok: false, error: parseErrorText(error) };
  }
  // Outside the try: internals of another shape must fail loudly, not read as a bad rule.
  return flag ? { ok: true, flag: shareRuleEngine(flag) } : { ok: false, error: "flagd-core kept no flag" };
}

/**
 * compileFlag(key, spec, false) without flagd-core's document parse: a flag without evaluators
 * needs no `$ref` replacement, and without `strict` the schema check only logs, so the flag goes
 * straight to flagd-core's FeatureFlag (through JSON, as the parse reads it). Half the time and
 * less garbage per flag (bench/RESULTS.md, "Targeting: sidecar memory"); the same evaluations
 * (test/flagd-static.test.ts, and the sidecar's flagd compatibility test).
 */
export function compileFlagLenient(key: string, spec: EvaluatedSpec): CompiledFlag {
  if (spec.evaluators !== undefined) return compileFlag(key, spec, false);
  let flag: FeatureFlag;
  try {
    const definition = JSON.parse(JSON.stringify(flagdFlagOf(spec))) as Flag;
    flag = new FeatureFlag(key, definition, SILENT, INTERPRETED);
  } catch (error) {
    // What the parse wraps as the cause of its ParseError, and parseErrorText reports.
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  return { ok: true, flag: shareRuleEngine(flag) };
}

/**
 * flagd-core's ParseError in a line: its cause (a JSON Logic error), or the first few of the
 * schema violations it lists as JSON (an unknown operator fails every branch of the schema, so
 * the same violation repeats; the branch-level "anyOf" ones say nothing more).
 */
function parseErrorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.cause instanceof Error) return error.cause.message;
  const listed = error.message.indexOf(": [");
  if (listed === -1) return error.message;
  let violations: {
    instancePath?: string;
    keyword?: string;
    message?: string;
    params?: Record<string, unknown>;
  }[];
  try {
    violations = JSON.parse(error.message.slice(listed + 2)) as typeof violations;
  } catch {
    return error.message;
  }
  const lines = new Set<string>();
  for (const v of violations) {
    if (v.keyword === "anyOf" || v.keyword === "oneOf" || v.keyword === "if") continue;
    const at = (v.instancePath ?? "").replace(/^\/flags\/[^/]*/, "") || "/";
    const detail = v.params?.["additionalProperty"] ?? v.params?.["allowedValues"];
    lines.add(
      `${at}: ${v.message ?? "invalid"}${detail === undefined ? "" : ` (${JSON.stringify(detail)})`}`,
    );
  }
  return [...lines].slice(0, 3).join("; ") || error.message.slice(0, listed);
}

/**
 * Evaluates a compiled flag for a context, as flagd's OFREP evaluation does: DISABLED for a
 * disabled flag, PARSE_ERROR for a targeting rule flagd-core could not build, GENERAL for a rule
 * that failed or named no variant, else the variant's value and flagd's reason.
 */
export function evaluateFlag(key: string, compiled: CompiledFlag, context: EvaluationContext): Evaluation {
  if (!compiled.ok)
    return { key, reason: "ERROR", errorCode: "PARSE_ERROR", errorDetails: compiled.error, metadata: {} };
  const flag = compiled.flag;
  if (flag.state === "DISABLED") return { key, reason: "DISABLED", metadata: flag.metadata };
  const result = flag.evaluate(context, SILENT);
  if (result.reason === "ERROR") {
    return {
      key,
      reason: "ERROR",
      errorCode: knownErrorCode(result.errorCode),
      errorDetails: result.errorMessage,
      metadata: flag.metadata,
    };
  }
  const evaluation: Evaluation = { key, reason: knownReason(result.reason), metadata: flag.metadata };
  if (result.value !== undefined) evaluation.value = result.value;
  if (result.variant !== undefined) evaluation.variant = result.variant;
  return evaluation;
}

/**
 * What evaluateFlag answers for a flag no context can change, without building flagd-core's
 * form of it (which costs memory per flag and its parsing's garbage): no targeting, no
 * evaluators, its default variant one of its variants. Such a flag is DISABLED, or its default
 * variant with reason STATIC (flagd-core's FeatureFlag.evaluate without targeting). Undefined for
 * any other flag: compile and evaluate it. Checked against flagd-core in test/flagd-static.test.ts.
 */
export function staticEvaluation(key: string, spec: EvaluatedSpec): Evaluation | undefined {
  if (spec.targeting !== undefined || spec.evaluators !== undefined) return undefined;
  // Through JSON as flagd-core parses it, so that values read alike (-0 is 0).
  const flag = JSON.parse(JSON.stringify(flagdFlagOf(spec))) as Flag;
  const variant = flag.defaultVariant;
  if (typeof variant !== "string" || variant === "" || !Object.hasOwn(flag.variants, variant)) {
    return undefined;
  }
  const metadata = { ...flag.metadata };
  if (flag.state === "DISABLED") return { key, reason: "DISABLED", metadata };
  return { key, value: flag.variants[variant] as JsonValue, variant, reason: "STATIC", metadata };
}

function knownErrorCode(code: string | undefined): EvaluationErrorCode {
  return code !== undefined && (EVALUATION_ERROR_CODES as readonly string[]).includes(code)
    ? (code as EvaluationErrorCode)
    : "GENERAL";
}

function knownReason(reason: string): EvaluationReason {
  return (EVALUATION_REASONS as readonly string[]).includes(reason)
    ? (reason as EvaluationReason)
    : "DEFAULT";
}

/** What the operator knows of a workload when it evaluates a flag for it (no request context). */
export interface WorkloadIdentity {
  cluster: string;
  clusterLabels: Readonly<Record<string, string>>;
  namespace: string;
  kind: string;
  name: string;
  labels: Readonly<Record<string, string>>;
}

/**
 * The evaluation context of a workload (docs/targeting.md, "Per-workload targeting"): its
 * targetingKey is `<cluster>/<namespace>/<kind>/<name>`, so a `fractional` rule buckets
 * workloads the same way on every evaluation and every replica.
 */
export function workloadContext(workload: WorkloadIdentity): EvaluationContext {
  return {
    targetingKey: `${workload.cluster}/${workload.namespace}/${workload.kind}/${workload.name}`,
    cluster: workload.cluster,
    clusterLabels: { ...workload.clusterLabels },
    namespace: workload.namespace,
    kind: workload.kind,
    name: workload.name,
    labels: { ...workload.labels },
  };
}

/**
 * The value text a workload gets: the evaluated variant's value for an enabled flag whose
 * evaluation succeeded, else the defaultValue (a failed evaluation falls back to the default,
 * as OpenFeature's providers do; the flag's status names the failure).
 */
export function deliveredValueText(spec: EvaluatedSpec, evaluation: Evaluation): string {
  if (evaluation.value === undefined) return spec.defaultValue;
  return (
    (evaluation.variant !== undefined ? spec.variants?.[evaluation.variant] : undefined) ?? spec.defaultValue
  );
}
