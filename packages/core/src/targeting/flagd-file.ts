/**
 * flagd flag-definition files (`{"flags": {...}, "$evaluators": {...}, "metadata": {...}}`,
 * flagd's published schema) to FeatureFlag specs and back (docs/api-flags-clusters.md, "Import
 * and export"). An import is all or nothing: every problem of the file is listed.
 */
import type { FlagType } from "../vocabulary.ts";
import { canonicalJson } from "../schema/canonical-json.ts";
import { validateFlagSpec, type Delivery, type FeatureFlagSpec } from "../flags/flag.ts";
import { evaluationKey, flagNameForKey, shortHash } from "../flags/flag-keys.ts";
import { flagdFlagOf, referrersFirst, refsOf, valueText } from "./flagd.ts";
import { fieldPath, type FieldError, type Validated } from "../schema/validation.ts";

export const FLAGD_SCHEMA_URL = "https://flagd.dev/schema/v0/flags.json";

export interface FlagdFile {
  $schema?: string;
  flags: Record<string, unknown>;
  $evaluators?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

/** A flag of an import or an export: its FeatureFlag name and spec. */
export interface NamedFlag {
  name: string;
  spec: FeatureFlagSpec;
}

const FILE_FIELDS = ["$schema", "flags", "$evaluators", "metadata"];
const FLAG_FIELDS = ["state", "variants", "defaultVariant", "targeting", "metadata"];

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** How a flag of the file is named in a problem: `flags["New.Checkout"].variants`. */
function flagField(key: string, field?: string): string {
  return `flags[${JSON.stringify(key)}]${field === undefined ? "" : `.${field}`}`;
}

/** The svc type of a flagd flag, from its variants' values, or why it has none. */
function typeOfVariants(values: readonly unknown[]): { type: FlagType } | { problem: string } {
  if (values.every((v) => typeof v === "boolean")) return { type: "boolean" };
  if (values.every((v) => typeof v === "number")) {
    const fraction = values.find((v) => !Number.isInteger(v));
    if (fraction === undefined) return { type: "integer" };
    return {
      problem: `svc has integers but no decimals: ${String(fraction)} cannot be imported (make every variant an integer)`,
    };
  }
  if (values.every((v) => typeof v === "string")) return { type: "string" };
  if (values.every(isObject)) return { type: "json" };
  return { problem: "must all be booleans, all numbers, all strings or all objects" };
}

/** The evaluators a rule refers to, directly or through other evaluators. */
function referencedEvaluators(rule: unknown, all: Json): Json {
  const used: Json = {};
  const pending = [...refsOf(rule)];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (name in used || !Object.hasOwn(all, name)) continue;
    used[name] = all[name];
    pending.push(...refsOf(all[name]));
  }
  return used;
}

function flagSpec(
  key: string,
  flag: Json,
  shared: { evaluators: Json; metadata: Json; delivery: Delivery },
): Validated<FeatureFlagSpec> {
  const errors: FieldError[] = [];
  for (const field of Object.keys(flag)) {
    if (!FLAG_FIELDS.includes(field))
      errors.push({ field: flagField(key, field), message: "is not a field of a flagd flag" });
  }
  const { state, variants, defaultVariant, targeting, metadata } = flag;
  if (state !== "ENABLED" && state !== "DISABLED")
    errors.push({ field: flagField(key, "state"), message: "must be ENABLED or DISABLED" });
  if (!isObject(variants) || Object.keys(variants).length === 0) {
    errors.push({ field: flagField(key, "variants"), message: "must be an object of at least one variant" });
    return { ok: false, errors };
  }
  const typed = typeOfVariants(Object.values(variants));
  if (typeof defaultVariant !== "string" || !Object.hasOwn(variants, defaultVariant))
    errors.push({
      field: flagField(key, "defaultVariant"),
      message: "must name one of the variants (svc delivers the default variant's value to workloads)",
    });
  if (targeting !== undefined && !isObject(targeting))
    errors.push({ field: flagField(key, "targeting"), message: "must be a JSON Logic object" });
  if (metadata !== undefined && !isObject(metadata))
    errors.push({ field: flagField(key, "metadata"), message: "must be an object" });
  if ("problem" in typed) errors.push({ field: flagField(key, "variants"), message: typed.problem });
  if (errors.length > 0 || !("type" in typed)) return { ok: false, errors };
  const flagType = typed.type;
  const texts = Object.fromEntries(
    Object.entries(variants).map(([name, value]) => [name, valueText(flagType, value) ?? ""]),
  );
  const rule = isObject(targeting) && Object.keys(targeting).length > 0 ? targeting : undefined;
  const evaluators = rule === undefined ? {} : referencedEvaluators(rule, shared.evaluators);
  const allMetadata = { ...shared.metadata, ...(isObject(metadata) ? metadata : {}) };
  const spec: FeatureFlagSpec = {
    type: flagType,
    defaultValue: texts[defaultVariant as string] ?? "",
    enabled: state === "ENABLED",
    delivery: shared.delivery,
    ...(flagNameForKey(key) === key ? {} : { key }),
    variants: texts,
    defaultVariant: defaultVariant as string,
    ...(rule === undefined ? {} : { targeting: rule }),
    ...(Object.keys(evaluators).length > 0 ? { evaluators: evaluators as Record<string, Json> } : {}),
    ...(Object.keys(allMetadata).length > 0
      ? { metadata: allMetadata as Record<string, string | number | boolean> }
      : {}),
  };
  return validateFlagSpec(spec, flagField(key));
}

/**
 * The FeatureFlags a flagd file defines, each delivered by `delivery`, or every problem of the
 * file (nothing is imported when one flag is wrong). Names come from flagNameForKey; a flag
 * whose name is not its key keeps the key in spec.key, so it is evaluated and served under it.
 */
export function importFlagdFile(
  file: unknown,
  options: { delivery: Delivery; prefix?: string },
): Validated<NamedFlag[]> {
  const result = importFlags(file, options.delivery);
  if (!result.ok) {
    const prefix = options.prefix ?? "";
    return { ok: false, errors: result.errors.map((e) => ({ ...e, field: fieldPath(prefix, e.field) })) };
  }
  const shared = sharedDeliveryProblem(options.delivery, result.value.length);
  return shared === undefined ? result : { ok: false, errors: [shared] };
}

/**
 * One delivery is given to every flag of a file: an env var name or a ConfigMap key can then
 * serve only one of them (two flags would write the same variable or key).
 */
function sharedDeliveryProblem(delivery: Delivery, count: number): FieldError | undefined {
  if (count < 2) return undefined;
  if (delivery.envVar?.name !== undefined)
    return {
      field: "delivery.envVar.name",
      message: `one variable cannot carry ${count} flags: leave the name out (each flag gets FLAG_<NAME>)`,
    };
  if (delivery.configMap !== undefined)
    return {
      field: "delivery.configMap",
      message: `one ConfigMap key cannot carry ${count} flags: import them with sidecar or envVar delivery`,
    };
  return undefined;
}

function importFlags(file: unknown, delivery: Delivery): Validated<NamedFlag[]> {
  if (!isObject(file) || !isObject(file["flags"]))
    return { ok: false, errors: [{ field: "flags", message: "a flagd file is an object with flags" }] };
  const errors: FieldError[] = Object.keys(file)
    .filter((field) => !FILE_FIELDS.includes(field))
    .map((field) => ({ field, message: "is not a part of flagd's file format" }));
  const evaluators = file["$evaluators"] ?? {};
  const metadata = file["metadata"] ?? {};
  if (!isObject(evaluators) || !Object.values(evaluators).every(isObject))
    errors.push({ field: "$evaluators", message: "must be an object of JSON Logic objects" });
  if (!isObject(metadata)) errors.push({ field: "metadata", message: "must be an object" });
  if (errors.length > 0) return { ok: false, errors };
  const shared = { evaluators: evaluators as Json, metadata: metadata as Json, delivery };
  const imported: NamedFlag[] = [];
  const keyOfName = new Map<string, string>();
  for (const [key, flag] of Object.entries(file["flags"]).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const name = flagNameForKey(key);
    const other = keyOfName.get(name);
    if (other !== undefined)
      errors.push({ field: flagField(key), message: `has the same FeatureFlag name ${name} as ${other}` });
    keyOfName.set(name, key);
    const spec = isObject(flag)
      ? flagSpec(key, flag, shared)
      : ({ ok: false, errors: [{ field: flagField(key), message: "must be an object" }] } as const);
    if (spec.ok) imported.push({ name, spec: spec.value });
    else errors.push(...spec.errors);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: imported };
}

/** The rule with every {"$ref": name} renamed by `renames`. */
function renameRefs(rule: unknown, renames: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(rule)) return rule.map((item) => renameRefs(item, renames));
  if (!isObject(rule)) return rule;
  return Object.fromEntries(
    Object.entries(rule).map(([field, value]) =>
      field === "$ref" && typeof value === "string"
        ? [field, renames.get(value) ?? value]
        : [field, renameRefs(value, renames)],
    ),
  );
}

/**
 * The names a flag's evaluators take in the file's shared `$evaluators`: their own, unless the
 * name already holds a different rule (from another flag); then the name and a hash of the rule.
 */
function sharedNames(own: Json, shared: Json): Map<string, string> {
  const renames = new Map(Object.keys(own).map((name) => [name, name]));
  const taken = (name: string, content: string) =>
    Object.hasOwn(shared, name) && canonicalJson(shared[name]) !== content;
  for (let changed = true; changed;) {
    changed = false;
    for (const [name, rule] of Object.entries(own)) {
      const content = canonicalJson(renameRefs(rule, renames));
      if (!taken(renames.get(name) ?? name, content)) continue;
      let candidate = `${name}-${shortHash(content)}`;
      for (let n = 2; taken(candidate, content); n++) candidate = `${name}-${shortHash(content)}-${n}`;
      renames.set(name, candidate);
      changed = true;
    }
  }
  return renames;
}

/** A flagd file of the flags, which flagd (and flagd-core, strictly) loads unchanged. */
export function exportFlagdFile(flags: readonly NamedFlag[]): FlagdFile {
  const keyed = flags
    .map((flag) => ({
      key: evaluationKey({ metadata: { name: flag.name, namespace: "" }, spec: flag.spec }),
      flag,
    }))
    .sort((a, b) => (a.key < b.key ? -1 : 1));
  const out: Json = {};
  const evaluators: Json = {};
  for (const { key, flag } of keyed) {
    const own = flag.spec.evaluators ?? {};
    const renames = sharedNames(own, evaluators);
    for (const [name, rule] of Object.entries(own))
      evaluators[renames.get(name) ?? name] = renameRefs(rule, renames);
    const targeting =
      flag.spec.targeting === undefined ? undefined : renameRefs(flag.spec.targeting, renames);
    out[key] = flagdFlagOf({
      ...flag.spec,
      ...(targeting === undefined ? {} : { targeting: targeting as Json }),
    });
  }
  return {
    $schema: FLAGD_SCHEMA_URL,
    flags: out,
    ...(Object.keys(evaluators).length > 0 ? { $evaluators: referrersFirst(evaluators) } : {}),
  };
}
