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
];

export interface InvalidFlagCase {
  why: string;
  spec: Record<string, unknown>;
  /** The field the TypeScript validator names. */
  field: string;
}

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
];

/** Flag names a FeatureFlag may not have: the API server and flagNameError both refuse them. */
export const invalidFlagNames = ["New-Checkout", "new_checkout", "-checkout", "n".repeat(64)];
