// A flag as the sidecar serves it. In a module of its own, importing nothing at run time, so that
// the model (flags.ts), the rendered responses (responses.ts) and OFREP (ofrep.ts) share the type
// without importing one another in a circle.
import type { FlagType } from "@svc/core/vocabulary";
import type { EvaluatedSpec } from "@svc/core/targeting/flagd";

/** The spec fields that decide an evaluation beyond the default value (absent: a static flag). */
export type FlagRules = Pick<
  EvaluatedSpec,
  "variants" | "defaultVariant" | "targeting" | "evaluators" | "metadata"
>;

/**
 * SPEC.md "Sidecar endpoints": `name`, `type`, `value`, `disabled` are the flag object of every
 * read and stream event; `key` and the rules are what OFREP evaluates (docs/sidecar.md).
 */
export interface SidecarFlag extends FlagRules {
  name: string;
  /** The flagd key OFREP serves the flag under: spec.key, else the name. */
  key: string;
  type: FlagType;
  /** spec.defaultValue (the default variant's value), always a string. */
  value: string;
  disabled: boolean;
  /**
   * Why its rules are not evaluated (over a bound of @svc/core/targeting/targeting-cost, applied with
   * kubectl and never served before in a good form): OFREP answers GENERAL with this reason.
   */
  refused?: string;
}

/** The flag as flagd-core's evaluation reads it. */
export function evaluatedSpecOf(flag: SidecarFlag): EvaluatedSpec {
  return {
    type: flag.type,
    defaultValue: flag.value,
    enabled: !flag.disabled,
    variants: flag.variants,
    defaultVariant: flag.defaultVariant,
    targeting: flag.targeting,
    evaluators: flag.evaluators,
    metadata: flag.metadata,
  };
}
