/**
 * A flag with variants may be written without its defaultValue: it is then the default
 * variant's value (defaultVariant is the source of truth, defaultValue its copy; docs/targeting.md).
 * No TypeBox and no Node built-ins: the dashboard bundles it.
 */
import type { FieldError, Validated } from "../schema/validation.ts";
import { fieldPath } from "../schema/validation.ts";

/** The fields that settle a defaultValue. */
export interface DefaultValueFields {
  defaultValue?: string | undefined;
  variants?: Record<string, string> | undefined;
  defaultVariant?: string | undefined;
}

/**
 * The definition with its defaultValue settled: the one given, else the default variant's value.
 * When both are given, their agreement is checked with the other variant rules (validateFlagSpec).
 */
export function withDefaultValue<T extends DefaultValueFields>(
  definition: T,
  prefix = "",
): Validated<T & { defaultValue: string }> {
  if (definition.defaultValue !== undefined) {
    return { ok: true, value: definition as T & { defaultValue: string } };
  }
  const { variants, defaultVariant } = definition;
  if (variants !== undefined && defaultVariant !== undefined && Object.hasOwn(variants, defaultVariant)) {
    const defaultValue = variants[defaultVariant];
    if (typeof defaultValue === "string") return { ok: true, value: { ...definition, defaultValue } };
  }
  const error: FieldError = {
    field: fieldPath(prefix, "defaultValue"),
    message:
      variants === undefined
        ? "is required"
        : "is required unless defaultVariant names one of the variants (its value is then the defaultValue)",
  };
  return { ok: false, errors: [error] };
}
