import Type from "typebox";
import { defaultValueProblem, defaultEnvVarName, deliveryKind, isEnabled } from "./values.ts";
import {
  DEFAULT_SIDECAR_PORT,
  SIDECAR_PORT_MAX,
  SIDECAR_PORT_MIN,
  FLAG_TYPES,
  INT64_MAX,
  INT64_MIN,
  DELIVERY_KINDS,
  FLAG_PHASES,
  TARGET_OUTCOMES,
  type DeliveryKind,
  type FlagPhase,
  type FlagType,
  type TargetOutcome,
} from "../vocabulary.ts";
import {
  C_IDENTIFIER,
  CONFIGMAP_KEY,
  CONFIGMAP_KEY_MAX,
  DNS1123_LABEL_MESSAGE,
  DNS1123_SUBDOMAIN,
  DNS1123_SUBDOMAIN_MAX,
  ENV_NAME_MAX,
  isDns1123Label,
  isLabelKey,
} from "../schema/names.ts";
import { Conditions, labelMap, type CelRule } from "../schema/schema.ts";
import { WORKLOAD_KINDS } from "../kubernetes/workload.ts";
import { fieldPath, schemaErrors, type FieldError, type Validated } from "../schema/validation.ts";
import {
  EVALUATORS_MAX,
  targetingErrors,
  VARIANT_NAME_MAX,
  VARIANTS_MAX,
} from "../targeting/targeting-rules.ts";
import { envVarNameProblem } from "../delivery/env-var-names.ts";

export {
  DEFAULT_SIDECAR_PORT,
  SIDECAR_PORT_MAX,
  SIDECAR_PORT_MIN,
  defaultEnvVarName,
  defaultValueProblem,
  deliveryKind,
  DELIVERY_KINDS,
  FLAG_PHASES,
  FLAG_TYPES,
  isEnabled,
  TARGET_OUTCOMES,
  type DeliveryKind,
  type FlagPhase,
  type FlagType,
  type TargetOutcome,
};

/** Largest defaultValue: values travel in env vars and ConfigMaps, both meant for small data. */
export const FLAG_VALUE_MAX = 65536;
export const FLAG_DESCRIPTION_MAX = 1024;
/** Most labels one selector may hold; bounds the cost of the CRD's CEL rules. */
export const SELECTOR_LABELS_MAX = 32;

const Selector = Type.Object(
  {
    matchLabels: labelMap({
      minProperties: 1,
      maxProperties: SELECTOR_LABELS_MAX,
      description: "Labels a workload (or its pod template) must all carry to receive the flag.",
      errorMessage:
        "must hold at least one label: an empty selector would match (and restart) every workload of the namespace",
    }),
  },
  {
    additionalProperties: false,
    description: "Target workloads: Deployments, StatefulSets and DaemonSets of the flag's namespace.",
  },
);

export const EnvVarDelivery = Type.Object(
  {
    name: Type.Optional(
      Type.String({
        maxLength: ENV_NAME_MAX,
        pattern: C_IDENTIFIER,
        errorMessage: "must be a C identifier: letters, digits and '_', not starting with a digit",
        description: "Variable name. Default: FLAG_ and the flag name upper-cased, '-' turned into '_'.",
      }),
    ),
    selector: Selector,
  },
  { additionalProperties: false, description: "Set the value as an environment variable (rolling update)." },
);

const configMapKeyRule: CelRule = { rule: "self != '.' && self != '..'", message: "must not be '.' or '..'" };

export const ConfigMapDelivery = Type.Object(
  {
    configMapName: Type.String({
      maxLength: DNS1123_SUBDOMAIN_MAX,
      pattern: DNS1123_SUBDOMAIN,
      errorMessage: "must be a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', at most 253",
      description: "ConfigMap that receives the value.",
    }),
    key: Type.String({
      maxLength: CONFIGMAP_KEY_MAX,
      pattern: CONFIGMAP_KEY,
      errorMessage: "must be a ConfigMap key: letters, digits, '-', '_' and '.'",
      description: "Key inside the ConfigMap.",
      "x-kubernetes-validations": [configMapKeyRule],
    }),
    selector: Selector,
  },
  { additionalProperties: false, description: "Write the value into a ConfigMap key (no restart)." },
);

export const SidecarDelivery = Type.Object(
  {
    port: Type.Optional(
      Type.Integer({
        minimum: SIDECAR_PORT_MIN,
        maximum: SIDECAR_PORT_MAX,
        description: `Port of the in-pod flag server. Default ${DEFAULT_SIDECAR_PORT}.`,
      }),
    ),
    selector: Selector,
  },
  { additionalProperties: false, description: "Serve all flags of the namespace from an injected sidecar." },
);

export const Delivery = Type.Object(
  {
    envVar: Type.Optional(EnvVarDelivery),
    configMap: Type.Optional(ConfigMapDelivery),
    sidecar: Type.Optional(SidecarDelivery),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    maxProperties: 1,
    errorMessage: "must hold exactly one of envVar, configMap or sidecar",
    description: "How the value reaches workloads: exactly one of envVar, configMap or sidecar.",
  },
);
export type Delivery = Type.Static<typeof Delivery>;

/** A flagd flag key: any text without control characters. */
export const FLAG_KEY = "^[^\\x00-\\x1f\\x7f]+$";
export const FLAG_KEY_MAX = 256;

export const METADATA_MAX = 32;

/** An object whose every property has the schema `values` (names are checked by the API). */
function objectOf<T>(values: Record<string, unknown>, options: Record<string, unknown>) {
  return Type.Unsafe<T>({ type: "object", additionalProperties: values, ...options });
}

/** Any JSON object (a JSON Logic rule): kept as written by the API server. */
function jsonObject(description: string) {
  return Type.Unsafe<Record<string, unknown>>({
    type: "object",
    description,
    "x-kubernetes-preserve-unknown-fields": true,
  });
}

/** The defaultValue-matches-type rules, as the CRD states them in CEL (JSON text is checked in TS only). */
const valueRules: CelRule[] = [
  {
    rule: "self.type != 'boolean' || self.defaultValue in ['true', 'false']",
    message: "defaultValue must be true or false for a boolean flag",
    fieldPath: ".defaultValue",
  },
  {
    // Same-length digit strings compare like the numbers they spell, so the 19-digit case
    // checks the signed 64-bit range by string comparison.
    rule:
      "self.type != 'integer' || (self.defaultValue.matches('^-?(0|[1-9][0-9]{0,18})$')" +
      ` && (!self.defaultValue.matches('^[0-9]{19}$') || self.defaultValue <= '${INT64_MAX}')` +
      ` && (!self.defaultValue.matches('^-[0-9]{19}$') || self.defaultValue <= '${INT64_MIN}'))`,
    message: "defaultValue must be a signed 64-bit decimal integer for an integer flag",
    fieldPath: ".defaultValue",
  },
];

/** What the CRD checks of variants itself (the rest is checked by the API, docs/targeting.md). */
const variantRules: CelRule[] = [
  {
    rule: "!has(self.variants) || (has(self.defaultVariant) && self.defaultVariant in self.variants)",
    message: "defaultVariant is required with variants and must name one of them",
    fieldPath: ".defaultVariant",
  },
  {
    rule: "!has(self.variants) || !has(self.defaultVariant) || !(self.defaultVariant in self.variants) || self.variants[self.defaultVariant] == self.defaultValue",
    message: "defaultValue must equal the default variant's value",
    fieldPath: ".defaultValue",
  },
  {
    rule: "has(self.variants) || (!has(self.defaultVariant) && !has(self.targeting))",
    message: "defaultVariant and targeting need variants",
    fieldPath: ".variants",
  },
];

export const FeatureFlagSpec = Type.Object(
  {
    type: Type.Enum([...FLAG_TYPES], { description: "Value type: boolean, integer, string or json." }),
    defaultValue: Type.String({
      maxLength: FLAG_VALUE_MAX,
      description: "The delivered value, always a string; must parse as the flag's type.",
    }),
    description: Type.Optional(Type.String({ maxLength: FLAG_DESCRIPTION_MAX, description: "Free text." })),
    enabled: Type.Optional(
      Type.Boolean({ default: true, description: "Disabled flags are withdrawn from raw channels." }),
    ),
    delivery: Delivery,
    key: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: FLAG_KEY_MAX,
        pattern: FLAG_KEY,
        errorMessage: `must be 1 to ${FLAG_KEY_MAX} characters, none of them a control character`,
        description:
          "The key the flag is evaluated and served under (OFREP, $flagd.flagKey), when it differs from the name: flagd keys are free strings. Default: the name.",
      }),
    ),
    variants: Type.Optional(
      objectOf<Record<string, string>>(
        { type: "string", maxLength: FLAG_VALUE_MAX },
        {
          minProperties: 1,
          maxProperties: VARIANTS_MAX,
          description:
            "Named values of the flag's type, each written as defaultValue is. With variants, defaultVariant names the default and defaultValue must equal its value.",
        },
      ),
    ),
    defaultVariant: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: VARIANT_NAME_MAX,
        description: "The variant served when no rule chooses one.",
      }),
    ),
    targeting: Type.Optional(
      jsonObject(
        "A rule in flagd's JSON Logic that names the variant for an evaluation context (docs/targeting.md).",
      ),
    ),
    evaluators: Type.Optional(
      objectOf<Record<string, Record<string, unknown>>>(
        { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        {
          maxProperties: EVALUATORS_MAX,
          description: 'Rules the targeting refers to with {"$ref": name} (flagd\'s $evaluators).',
        },
      ),
    ),
    metadata: Type.Optional(
      objectOf<Record<string, string | number | boolean>>(
        { "x-kubernetes-preserve-unknown-fields": true },
        {
          maxProperties: METADATA_MAX,
          description: "flagd's flag metadata (strings, numbers, booleans): returned with every evaluation.",
        },
      ),
    ),
  },
  { additionalProperties: false, "x-kubernetes-validations": [...valueRules, ...variantRules] },
);
export type FeatureFlagSpec = Type.Static<typeof FeatureFlagSpec>;

/** Most targets a flag's status lists: a status must stay far below etcd's object size limit. */
export const STATUS_TARGETS_MAX = 500;

export const FlagTarget = Type.Object({
  kind: Type.Enum([...WORKLOAD_KINDS]),
  name: Type.String({ maxLength: DNS1123_SUBDOMAIN_MAX }),
  delivered: Type.Boolean(),
  outcome: Type.Optional(Type.Enum([...TARGET_OUTCOMES])),
  hash: Type.Optional(Type.String({ maxLength: 128 })),
  message: Type.Optional(Type.String({ maxLength: 4096 })),
});
export type FlagTarget = Type.Static<typeof FlagTarget>;

export const FeatureFlagStatus = Type.Object({
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0, format: "int64" })),
  phase: Type.Optional(Type.Enum([...FLAG_PHASES])),
  delivery: Type.Optional(Type.Enum([...DELIVERY_KINDS], { description: "The delivery kind in use." })),
  targets: Type.Optional(
    Type.Array(FlagTarget, {
      maxItems: STATUS_TARGETS_MAX,
      description: `The workloads the flag targets; at most ${STATUS_TARGETS_MAX}, problems first (message says how many in all).`,
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["kind", "name"],
    }),
  ),
  message: Type.Optional(Type.String({ maxLength: 32768 })),
  conditions: Type.Optional(Conditions),
});
export type FeatureFlagStatus = Type.Static<typeof FeatureFlagStatus>;

function identityError(field: string, value: string): FieldError | undefined {
  if (value === "") return { field, message: "is required" };
  return isDns1123Label(value) ? undefined : { field, message: DNS1123_LABEL_MESSAGE };
}

/** Checks a flag name (the FeatureFlag's metadata.name). */
export function flagNameError(name: string): FieldError | undefined {
  return identityError("name", name);
}

/** Checks a namespace name. */
export function namespaceError(namespace: string): FieldError | undefined {
  return identityError("namespace", namespace);
}

/** Rules JSON Schema cannot state: the value parses as its type, selector keys are label keys. */
function semanticErrors(spec: FeatureFlagSpec, prefix: string): FieldError[] {
  const errors: FieldError[] = [];
  const valueProblem = defaultValueProblem(spec.type, spec.defaultValue);
  if (valueProblem) errors.push({ field: fieldPath(prefix, "defaultValue"), message: valueProblem });
  for (const kind of DELIVERY_KINDS) {
    const target = spec.delivery[kind];
    if (!target) continue;
    const labelsPath = fieldPath(prefix, `delivery.${kind}.selector.matchLabels`);
    for (const key of Object.keys(target.selector.matchLabels)) {
      if (!isLabelKey(key)) {
        errors.push({
          field: fieldPath(labelsPath, key),
          message:
            "is not a valid label key (an optional DNS subdomain prefix and '/', then a name of at most 63 characters)",
        });
      }
    }
  }
  const envName = spec.delivery.envVar?.name;
  const envProblem = envName === undefined ? undefined : envVarNameProblem(envName);
  if (envProblem !== undefined)
    errors.push({ field: fieldPath(prefix, "delivery.envVar.name"), message: envProblem });
  const key = spec.delivery.configMap?.key;
  if (key === "." || key === "..") {
    errors.push({ field: fieldPath(prefix, "delivery.configMap.key"), message: "must not be '.' or '..'" });
  }
  if (errors.length > 0) return errors;
  return targetingErrors(spec.key ?? "flag", spec, prefix);
}

/**
 * Validates a FeatureFlag spec (DESIGN.md §4). `prefix` names where the spec sits in the caller's
 * document ("" for a REST body, "spec" for a resource). Semantic rules run only on a spec whose
 * shape is right, so every message is about one field.
 */
export function validateFlagSpec(input: unknown, prefix = ""): Validated<FeatureFlagSpec> {
  const shapeErrors = schemaErrors(FeatureFlagSpec, input, prefix);
  if (shapeErrors.length > 0) return { ok: false, errors: shapeErrors };
  const spec = input as FeatureFlagSpec;
  const errors = semanticErrors(spec, prefix);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: spec };
}
