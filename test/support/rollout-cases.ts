// FlagRollout specs every layer must agree on: the TypeScript validator (REST API) and the CRD
// schema in the real API server accept the valid ones and refuse the invalid ones, naming the
// field. (Rules that need the registered clusters or the flag, such as an unknown cluster or a
// selector matching a cluster an earlier wave holds, are the API's and the plan's: see their tests.)
export const validRolloutSpec = {
  flag: { namespace: "shop", name: "new-checkout" },
  change: { defaultValue: "true" },
  startAt: "2026-12-01T09:00:00Z",
  waves: [
    { clusters: ["staging"], bakeSeconds: 120 },
    { clusterSelector: { matchLabels: { region: "eu" } }, bakeSeconds: 300 },
    { clusters: ["us-1", "us-2"] },
  ],
  progressDeadlineSeconds: 900,
};

export const validRolloutSpecs: Record<string, unknown>[] = [
  validRolloutSpec,
  {
    flag: { namespace: "shop", name: "theme" },
    change: {
      variants: { a: "blue", b: "green" },
      defaultVariant: "b",
      defaultValue: "green",
      enabled: true,
    },
    waves: [{ clusters: ["local"], bakeSeconds: 0 }],
  },
  {
    flag: { namespace: "shop", name: "theme" },
    change: { targeting: { if: [{ "==": [{ var: "plan" }, "pro"] }, "b", null] } },
    startAt: "2026-12-01T09:00:00.5+01:00",
    waves: [{ clusters: ["a"] }],
    paused: true,
    skipBake: 0,
  },
];

export interface InvalidRolloutCase {
  why: string;
  spec: Record<string, unknown>;
  /** The field the TypeScript validator names (the API server names spec.<first part>). */
  field: string;
  /** A field the schema does not know: kubectl's strict decoding refuses it (400, not 422). */
  unknownField?: true;
}

const withSpec = (patch: Record<string, unknown>) => ({ ...validRolloutSpec, ...patch });

export const invalidRolloutCases: InvalidRolloutCase[] = [
  { why: "zero waves", spec: withSpec({ waves: [] }), field: "waves" },
  { why: "no waves", spec: { ...withSpec({}), waves: undefined }, field: "waves" },
  {
    why: "a bake time over a day",
    spec: withSpec({ waves: [{ clusters: ["a"], bakeSeconds: 86_401 }] }),
    field: "waves.0.bakeSeconds",
  },
  {
    why: "a negative bake time",
    spec: withSpec({ waves: [{ clusters: ["a"], bakeSeconds: -1 }] }),
    field: "waves.0.bakeSeconds",
  },
  {
    why: "a start time without a zone",
    spec: withSpec({ startAt: "2026-12-01T09:00:00" }),
    field: "startAt",
  },
  { why: "a start time as a date only", spec: withSpec({ startAt: "2026-12-01" }), field: "startAt" },
  { why: "a start time that is no date", spec: withSpec({ startAt: "tomorrow" }), field: "startAt" },
  { why: "no change", spec: withSpec({ change: {} }), field: "change" },
  {
    why: "a change of the delivery",
    spec: withSpec({ change: { delivery: { sidecar: {} } } }),
    field: "change.delivery",
    unknownField: true,
  },
  { why: "a flag without a namespace", spec: withSpec({ flag: { name: "x" } }), field: "flag.namespace" },
  {
    why: "a flag name that is no name",
    spec: withSpec({ flag: { namespace: "shop", name: "Bad_Name" } }),
    field: "flag.name",
  },
  { why: "a wave naming no clusters", spec: withSpec({ waves: [{ bakeSeconds: 10 }] }), field: "waves.0" },
  {
    why: "a wave with both ids and a selector",
    spec: withSpec({ waves: [{ clusters: ["a"], clusterSelector: { matchLabels: { env: "x" } } }] }),
    field: "waves.0",
  },
  {
    why: "a cluster id that is no id",
    spec: withSpec({ waves: [{ clusters: ["Prod EU"] }] }),
    field: "waves.0.clusters.0",
  },
  {
    why: "an empty selector",
    spec: withSpec({ waves: [{ clusterSelector: { matchLabels: {} } }] }),
    field: "waves.0.clusterSelector.matchLabels",
  },
  {
    why: "a progress deadline under 30 s",
    spec: withSpec({ progressDeadlineSeconds: 5 }),
    field: "progressDeadlineSeconds",
  },
  { why: "an unknown field", spec: withSpec({ replicas: 3 }), field: "replicas", unknownField: true },
];

/** Refused by the validator only: the CRD cannot state them (the API refuses them before Kubernetes sees them). */
export const invalidRolloutCasesTypeScriptOnly: InvalidRolloutCase[] = [
  {
    why: "overlapping waves (one cluster id in two)",
    spec: withSpec({ waves: [{ clusters: ["a", "b"] }, { clusters: ["b"] }] }),
    field: "waves.1.clusters",
  },
  {
    why: "a start time on the 13th month",
    spec: withSpec({ startAt: "2026-13-01T09:00:00Z" }),
    field: "startAt",
  },
  { why: "skipBake beyond the last wave", spec: withSpec({ skipBake: 3 }), field: "skipBake" },
];
