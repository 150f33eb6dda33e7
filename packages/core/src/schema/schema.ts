import Type from "typebox";
import {
  DNS1123_LABEL,
  DNS1123_LABEL_MAX,
  DNS1123_LABEL_MESSAGE,
  LABEL_KEY,
  LABEL_KEY_PREFIX_MAX,
  LABEL_VALUE,
  LABEL_VALUE_MAX,
} from "./names.ts";

/**
 * Extra keywords our schemas carry besides JSON Schema:
 * - `errorMessage`: the sentence a person reads when the value breaks the schema's own
 *   constraints (pattern, length, ...). Used by the TypeScript validator, dropped from CRDs.
 * - `x-kubernetes-validations`: CEL rules for what JSON Schema cannot say; kept in CRDs,
 *   mirrored in TypeScript by the semantic checks in the same module as the schema.
 */
export interface CelRule {
  rule: string;
  message: string;
  fieldPath?: string;
  reason?: "FieldValueInvalid" | "FieldValueForbidden" | "FieldValueRequired" | "FieldValueDuplicate";
}

export interface SchemaExtras {
  errorMessage?: string;
  "x-kubernetes-validations"?: CelRule[];
}

/** A string label map (selector matchLabels, free labels). Keys are checked by a CEL rule. */
export function labelMap(options: {
  minProperties?: number;
  maxProperties: number;
  description: string;
  errorMessage?: string;
}) {
  const keyRule: CelRule = {
    rule: `self.all(k, k.matches(r'${LABEL_KEY}') && (!k.contains('/') || k.indexOf('/') <= ${LABEL_KEY_PREFIX_MAX}))`,
    message:
      "every key must be a valid label key (an optional DNS subdomain prefix and '/', then a name of at most 63 characters)",
  };
  return Type.Unsafe<Record<string, string>>({
    type: "object",
    description: options.description,
    additionalProperties: {
      type: "string",
      maxLength: LABEL_VALUE_MAX,
      pattern: LABEL_VALUE,
      errorMessage:
        "must be a valid label value (at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit)",
    },
    ...(options.minProperties === undefined ? {} : { minProperties: options.minProperties }),
    maxProperties: options.maxProperties,
    ...(options.errorMessage === undefined ? {} : { errorMessage: options.errorMessage }),
    "x-kubernetes-validations": [keyRule],
  });
}

/** A DNS-1123 label: a namespace, flag name or cluster id in a request body. */
export function dns1123Label(description: string) {
  return Type.String({
    maxLength: DNS1123_LABEL_MAX,
    pattern: DNS1123_LABEL,
    errorMessage: DNS1123_LABEL_MESSAGE,
    description,
  });
}

/** A metav1.Condition, as Kubernetes API conventions define it. */
export const Condition = Type.Object({
  type: Type.String({ maxLength: 316 }),
  status: Type.Enum(["True", "False", "Unknown"]),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0, format: "int64" })),
  lastTransitionTime: Type.String({ format: "date-time" }),
  reason: Type.String({ maxLength: 1024 }),
  message: Type.String({ maxLength: 32768 }),
});
export type Condition = Type.Static<typeof Condition>;

/** Conditions list keyed by type, merged by server-side apply. */
export const Conditions = Type.Array(Condition, {
  maxItems: 32,
  "x-kubernetes-list-type": "map",
  "x-kubernetes-list-map-keys": ["type"],
});
