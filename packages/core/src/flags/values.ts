/** The rules of a flag's own fields that need no schema: light enough for the sidecar and the browser. */
import { DELIVERY_KINDS, INT64_MAX, INT64_MIN, type DeliveryKind, type FlagType } from "../vocabulary.ts";

/** FLAG_ + the flag name upper-cased, '-' turned into '_' (a flag name is a DNS-1123 label). */
export function defaultEnvVarName(flagName: string): string {
  return `FLAG_${flagName.toUpperCase().replaceAll("-", "_")}`;
}

/** The delivery kind a delivery holds (a valid one holds exactly one). */
export function deliveryKind(delivery: Partial<Record<DeliveryKind, unknown>>): DeliveryKind {
  const kind = DELIVERY_KINDS.find((k) => delivery[k] !== undefined);
  if (kind === undefined) throw new Error("delivery holds no kind");
  return kind;
}

export function isEnabled(spec: { enabled?: boolean | undefined }): boolean {
  return spec.enabled !== false;
}

/** Whether a flag's value can differ by context: it has a (non-empty) targeting rule. */
export function isTargeted(spec: { targeting?: Record<string, unknown> | undefined }): boolean {
  return spec.targeting !== undefined && Object.keys(spec.targeting).length > 0;
}

/** Why `value` is not a valid value of `type`, or undefined when it is. */
export function defaultValueProblem(type: FlagType, value: string): string | undefined {
  switch (type) {
    case "boolean":
      return value === "true" || value === "false" ? undefined : "must be true or false for a boolean flag";
    case "integer": {
      const problem = "must be a signed 64-bit decimal integer for an integer flag";
      if (!/^-?(0|[1-9][0-9]*)$/.test(value)) return problem;
      const n = BigInt(value);
      return n >= BigInt(INT64_MIN) && n <= BigInt(INT64_MAX) ? undefined : problem;
    }
    case "json":
      try {
        JSON.parse(value);
        return undefined;
      } catch {
        return "must be valid JSON text for a json flag";
      }
    case "string":
      return undefined;
  }
}
