/**
 * The flag form's variants and targeting, pure: rows of variants, the default one, and a rule
 * that is either a percentage rollout between two variants (edited with a slider) or any other
 * JSON Logic (edited as text). The browser never evaluates a rule: it checks JSON syntax as the
 * user types, and the API checks and evaluates the rule (POST /api/v1/flags/evaluate).
 */
import {
  defaultValueProblem,
  isTargeted,
  type FlagCreateBody,
  type FlagType,
  type FlagView,
} from "@svc/core/browser";

export interface VariantRow {
  name: string;
  /** The value's text, written as defaultValue is ("true", "42", plain text, JSON text). */
  value: string;
}

/** none: everyone gets the default variant; rollout: a two-variant split; rule: any JSON Logic. */
export type TargetingMode = "none" | "rollout" | "rule";

export interface TargetingForm {
  /** Empty: the flag has one value (its defaultValue) and no targeting. */
  variants: VariantRow[];
  defaultVariant: string;
  mode: TargetingMode;
  /** The share (0–100) of the first variant in a rollout; the second gets the rest. */
  rolloutPercent: number;
  ruleText: string;
  /** Fields the form does not edit, sent back as they were (evaluators only with a rule). */
  kept: Pick<TargetingFields, "key" | "evaluators" | "metadata">;
}

/** The flag's targeting fields, as the API returns them with a flag. */
export type TargetingFields = Pick<
  FlagView,
  "key" | "variants" | "defaultVariant" | "targeting" | "evaluators" | "metadata"
>;

export interface Rollout {
  /** The variant the percentage is of. */
  variant: string;
  /** The variant that gets the rest. */
  other: string;
  percent: number;
}

export const NO_TARGETING: TargetingForm = {
  variants: [],
  defaultVariant: "",
  mode: "none",
  rolloutPercent: 0,
  ruleText: "",
  kept: {},
};

const isPercent = (n: unknown): n is number =>
  Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 100;

/**
 * The rollout a targeting rule is, when it is exactly `{"fractional": [[a, p], [b, 100 - p]]}`
 * over the flag's two variants (what the slider writes); any other rule is not one.
 */
export function rolloutOf(
  targeting: Record<string, unknown> | undefined,
  variantNames: readonly string[],
): Rollout | undefined {
  if (targeting === undefined || variantNames.length !== 2) return undefined;
  const keys = Object.keys(targeting);
  const buckets = targeting["fractional"];
  if (keys.length !== 1 || !Array.isArray(buckets) || buckets.length !== 2) return undefined;
  const [first, second] = buckets as unknown[];
  if (!Array.isArray(first) || !Array.isArray(second) || first.length !== 2 || second.length !== 2)
    return undefined;
  const [variant, percent] = first as unknown[];
  const [other, rest] = second as unknown[];
  if (typeof variant !== "string" || typeof other !== "string" || variant === other) return undefined;
  if (!variantNames.includes(variant) || !variantNames.includes(other)) return undefined;
  if (!isPercent(percent) || !isPercent(rest) || percent + rest !== 100) return undefined;
  return { variant, other, percent };
}

/** The rule a rollout is: flagd's `fractional`, bucketing by flag key and targetingKey. */
export function rolloutTargeting({ variant, other, percent }: Rollout): Record<string, unknown> {
  return {
    fractional: [
      [variant, percent],
      [other, 100 - percent],
    ],
  };
}

/** The form's targeting part from a flag; a rollout's variant is put first (the slider's). */
export function targetingFormOf(flag: Partial<TargetingFields>): TargetingForm {
  const kept = Object.fromEntries(
    (["key", "evaluators", "metadata"] as const).flatMap((field) =>
      flag[field] === undefined ? [] : [[field, flag[field]]],
    ),
  ) as TargetingForm["kept"];
  if (flag.variants === undefined) return { ...NO_TARGETING, kept };
  const rows = Object.entries(flag.variants).map(([name, value]) => ({ name, value }));
  const rollout = rolloutOf(flag.targeting, Object.keys(flag.variants));
  const base = { ...NO_TARGETING, variants: rows, defaultVariant: flag.defaultVariant ?? "", kept };
  if (rollout !== undefined) {
    const ordered = [...rows].sort(
      (a, b) => Number(b.name === rollout.variant) - Number(a.name === rollout.variant),
    );
    return { ...base, variants: ordered, mode: "rollout", rolloutPercent: rollout.percent };
  }
  if (flag.targeting === undefined || Object.keys(flag.targeting).length === 0) return base;
  // Evaluators are not edited by the form: a rule that uses them is shown as JSON Logic.
  return { ...base, mode: "rule", ruleText: JSON.stringify(flag.targeting, null, 2) };
}

/**
 * Variants to start from when the user adds them: on/off for a boolean, else the current value
 * twice under two names, the current value being the default.
 */
export function startingVariants(
  type: FlagType,
  value: string,
): Pick<TargetingForm, "variants" | "defaultVariant"> {
  if (type === "boolean") {
    return {
      variants: [
        { name: "on", value: "true" },
        { name: "off", value: "false" },
      ],
      defaultVariant: value === "true" ? "on" : "off",
    };
  }
  return {
    variants: [
      { name: "control", value },
      { name: "treatment", value },
    ],
    defaultVariant: "control",
  };
}

/** A JSON object typed as text (a rule, a context's attributes), or why it is not one. */
export function jsonObjectOf(text: string): { value: Record<string, unknown> } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { problem: "must be a JSON object" };
  return { value: value as Record<string, unknown> };
}

/** The rule as parsed from its text: an object, or why it is not one. */
export function parsedRule(text: string): { value: Record<string, unknown> } | { problem: string } {
  if (text.trim() === "") return { problem: "write a rule, or choose another kind of targeting" };
  return jsonObjectOf(text);
}

/** The body's targeting fields; defaultValue follows the default variant (one source of truth). */
export function targetingBody(
  form: TargetingForm,
  defaultValue: string,
): Pick<FlagCreateBody, "defaultValue"> & Partial<TargetingFields> {
  const { evaluators, ...kept } = form.kept;
  if (form.variants.length === 0) return { ...kept, defaultValue };
  const variants = Object.fromEntries(form.variants.map((row) => [row.name.trim(), row.value]));
  const body = {
    ...kept,
    defaultValue: variants[form.defaultVariant] ?? defaultValue,
    variants,
    defaultVariant: form.defaultVariant,
  };
  const [first, second] = form.variants;
  if (form.mode === "rollout" && first !== undefined && second !== undefined) {
    const rollout = { variant: first.name.trim(), other: second.name.trim(), percent: form.rolloutPercent };
    return { ...body, targeting: rolloutTargeting(rollout) };
  }
  const parsed = parsedRule(form.ruleText);
  if (form.mode === "rule" && "value" in parsed)
    return { ...body, targeting: parsed.value, ...(evaluators === undefined ? {} : { evaluators }) };
  return body;
}

/** What is wrong with the variants and the rule as typed, keyed by the API's field names. */
export function targetingProblems(form: TargetingForm, type: FlagType): Partial<Record<string, string>> {
  const problems: Partial<Record<string, string>> = {};
  if (form.variants.length === 0) return problems;
  const seen = new Set<string>();
  for (const [index, row] of form.variants.entries()) {
    const name = row.name.trim();
    const valueProblem = defaultValueProblem(type, row.value);
    const problem =
      name === ""
        ? `variant ${index + 1} needs a name`
        : seen.has(name)
          ? `variant ${name} appears twice`
          : valueProblem === undefined
            ? undefined
            : `${name}: ${valueProblem}`;
    seen.add(name);
    if (problem !== undefined && problems["variants"] === undefined)
      problems["variants"] = `variants: ${problem}`;
  }
  if (!form.variants.some((row) => row.name.trim() === form.defaultVariant))
    problems["defaultVariant"] = "defaultVariant: choose the default variant";
  if (form.mode === "rollout" && form.variants.length !== 2)
    problems["targeting"] = "targeting: a percentage rollout splits exactly two variants";
  if (form.mode === "rule") {
    const parsed = parsedRule(form.ruleText);
    if ("problem" in parsed) problems["targeting"] = `targeting: ${parsed.problem}`;
  }
  return problems;
}

/** How the flag list names a flag's targeting: its rollout ("25% on"), "targeted", or nothing. */
export function targetingSummary(flag: Pick<TargetingFields, "variants" | "targeting">): string | undefined {
  if (!isTargeted(flag) || flag.targeting === undefined) return undefined;
  const rollout = rolloutOf(flag.targeting, Object.keys(flag.variants ?? {}));
  return rollout === undefined ? "targeted" : `${rollout.percent}% ${rollout.variant}`;
}
