// Flag specs that every layer must agree on: the TypeScript validator (REST API) and the CRD
// schema in the real API server accept the valid ones and refuse the invalid ones.
const selector = { matchLabels: { app: "web" } };

export const validFlagSpec = {
  type: "boolean",
  defaultValue: "true",
  description: "New checkout flow",
  delivery: { envVar: { selector } },
};

export const validFlagSpecs: Record<string, unknown>[] = [
  validFlagSpec,
  {
    type: "integer",
    defaultValue: "9223372036854775807",
    delivery: { configMap: { configMapName: "web-flags", key: "limit", selector } },
  },
  { type: "integer", defaultValue: "-9223372036854775808", delivery: { sidecar: { port: 9000, selector } } },
  { type: "json", defaultValue: '{"colour":"blue"}', enabled: false, delivery: { sidecar: { selector } } },
  {
    type: "string",
    defaultValue: "",
    delivery: {
      envVar: { name: "CHECKOUT", selector: { matchLabels: { "example.com/app": "web", tier: "" } } },
    },
  },
  {
    type: "boolean",
    defaultValue: "false",
    key: "New.Checkout_Flag",
    variants: { on: "true", off: "false" },
    defaultVariant: "off",
    targeting: {
      if: [
        { in: [{ var: "tenant" }, ["acme", "globex"]] },
        "on",
        {
          fractional: [
            { cat: [{ var: "$flagd.flagKey" }, { var: "targetingKey" }] },
            ["on", 25],
            ["off", 75],
          ],
        },
      ],
    },
    metadata: { team: "shop", tier: 1, beta: true },
    delivery: { sidecar: { selector } },
  },
  {
    type: "string",
    defaultValue: "blue",
    variants: { blue: "blue", green: "green" },
    defaultVariant: "blue",
    targeting: { if: [{ $ref: "isStaff" }, "green", null] },
    evaluators: { isStaff: { ends_with: [{ var: "email" }, "@example.com"] } },
    delivery: { envVar: { selector } },
  },
];

export interface InvalidFlagCase {
  why: string;
  spec: Record<string, unknown>;
  /** The field the TypeScript validator names. */
  field: string;
  /** The CRD cannot check it (JSON Logic contents, variant values): only the API refuses it. */
  apiOnly?: true;
}

/** A boolean flag with variants, to build the targeting cases from. */
const withVariants = {
  ...validFlagSpec,
  defaultValue: "false",
  variants: { on: "true", off: "false" },
  defaultVariant: "off",
};

/** `{"!": {"!": … true}}`, `depth` levels deep. */
function nestedRule(depth: number): Record<string, unknown> {
  let rule: unknown = true;
  for (let i = 0; i < depth; i++) rule = { "!": [rule] };
  return rule as Record<string, unknown>;
}

/** The API's request body limit (DESIGN.md §4): a rule just under it must be a 400, not a 413. */
const BODY_LIMIT = 1024 * 1024;
const hugeRule = { in: [{ var: "tenant" }, ["x".repeat(BODY_LIMIT - 4096)]] };

const withDelivery = (delivery: unknown) => ({ ...validFlagSpec, delivery });

export const invalidFlagCases: InvalidFlagCase[] = [
  { why: "unknown type", spec: { ...validFlagSpec, type: "float" }, field: "type" },
  {
    why: "boolean value not true/false",
    spec: { ...validFlagSpec, defaultValue: "yes" },
    field: "defaultValue",
  },
  {
    why: "integer value with a fraction",
    spec: { ...validFlagSpec, type: "integer", defaultValue: "1.5" },
    field: "defaultValue",
  },
  {
    why: "integer above int64",
    spec: { ...validFlagSpec, type: "integer", defaultValue: "9223372036854775808" },
    field: "defaultValue",
  },
  {
    why: "integer below int64",
    spec: { ...validFlagSpec, type: "integer", defaultValue: "-9223372036854775809" },
    field: "defaultValue",
  },
  {
    why: "integer with a leading zero",
    spec: { ...validFlagSpec, type: "integer", defaultValue: "007" },
    field: "defaultValue",
  },
  {
    why: "two delivery kinds",
    spec: withDelivery({ envVar: { selector }, sidecar: { selector } }),
    field: "delivery",
  },
  { why: "no delivery kind", spec: withDelivery({}), field: "delivery" },
  {
    why: "empty selector",
    spec: withDelivery({ envVar: { selector: { matchLabels: {} } } }),
    field: "delivery.envVar.selector.matchLabels",
  },
  {
    why: "bad label key",
    spec: withDelivery({ envVar: { selector: { matchLabels: { "a b": "web" } } } }),
    field: "delivery.envVar.selector.matchLabels.a b",
  },
  {
    why: "bad label value",
    spec: withDelivery({ envVar: { selector: { matchLabels: { app: "-web" } } } }),
    field: "delivery.envVar.selector.matchLabels.app",
  },
  {
    why: "env var name not a C identifier",
    spec: withDelivery({ envVar: { name: "1-FLAG", selector } }),
    field: "delivery.envVar.name",
  },
  {
    why: "ConfigMap name not a subdomain",
    spec: withDelivery({ configMap: { configMapName: "Web_Flags", key: "k", selector } }),
    field: "delivery.configMap.configMapName",
  },
  {
    why: "ConfigMap key '..'",
    spec: withDelivery({ configMap: { configMapName: "web", key: "..", selector } }),
    field: "delivery.configMap.key",
  },
  {
    why: "sidecar port below 1024",
    spec: withDelivery({ sidecar: { port: 80, selector } }),
    field: "delivery.sidecar.port",
  },
  {
    why: "description over 1024 characters",
    spec: { ...validFlagSpec, description: "x".repeat(1025) },
    field: "description",
  },
  {
    why: "missing defaultValue",
    spec: { type: "string", delivery: { sidecar: { selector } } },
    field: "defaultValue",
  },
  {
    why: "a defaultVariant that names no variant",
    spec: { ...withVariants, defaultVariant: "maybe" },
    field: "defaultVariant",
  },
  {
    why: "a defaultValue other than the default variant's",
    spec: { ...withVariants, defaultValue: "true" },
    field: "defaultValue",
  },
  { why: "a key with a control character", spec: { ...validFlagSpec, key: "a\nb" }, field: "key" },
  {
    why: "invalid JSON Logic",
    spec: { ...withVariants, targeting: { no_such_operator: [1, 2] } },
    field: "targeting",
    apiOnly: true,
  },
  {
    why: "a rule returning an unknown variant",
    spec: { ...withVariants, targeting: { if: [{ "==": [{ var: "tier" }, "gold"] }, "gold", "off"] } },
    field: "targeting",
    apiOnly: true,
  },
  {
    why: "a variant of the wrong type",
    spec: { ...withVariants, variants: { on: "yes", off: "false" } },
    field: "variants.on",
    apiOnly: true,
  },
  {
    why: "a rule nested 1,000 deep",
    spec: { ...withVariants, targeting: nestedRule(1000) },
    field: "targeting",
    apiOnly: true,
  },
  {
    why: "a rule of almost 1 MiB",
    spec: { ...withVariants, targeting: hugeRule },
    field: "targeting",
    apiOnly: true,
  },
  {
    why: "a $ref cycle",
    spec: {
      ...withVariants,
      targeting: { if: [{ $ref: "a" }, "on", "off"] },
      evaluators: { a: { $ref: "b" }, b: { and: [{ $ref: "a" }, true] } },
    },
    field: "evaluators.a",
    apiOnly: true,
  },
  {
    why: "metadata that is not a scalar",
    spec: { ...validFlagSpec, metadata: { owner: { team: "shop" } } },
    field: "metadata.owner",
    apiOnly: true,
  },
];

/** Flag names a FeatureFlag may not have: the API server and flagNameError both refuse them. */
export const invalidFlagNames = ["New-Checkout", "new_checkout", "-checkout", "n".repeat(64)];
