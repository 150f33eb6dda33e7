// The FlagRollout resource (docs/safe-changes.md): a change to one flag, applied wave by wave
// across clusters, each wave baked and health-gated, rolled back on its own when a gate fails.
// One TypeBox schema feeds the CRD, the REST validation and the types, as for FeatureFlag.
import Type from "typebox";
import { FeatureFlagSpec, STATUS_TARGETS_MAX, type FeatureFlagSpec as FlagSpec } from "../flags/flag.ts";
import { DNS1123_LABEL, DNS1123_LABEL_MAX, isLabelKey } from "../schema/names.ts";
import {
  CANARY_WORKLOADS_MAX,
  FINISHED_ROLLOUT_PHASES,
  ROLLOUT_PHASES,
  shownRolloutPhase,
  WAVE_PHASES,
  WORKLOAD_HEALTH,
  type RolloutPhase,
  type WavePhase,
  type WorkloadHealthState,
} from "./phases.ts";
import type { ObjectMeta } from "../kubernetes/object-meta.ts";
import { Conditions, dns1123Label, labelMap } from "../schema/schema.ts";
import { fieldPath, schemaErrors, type FieldError, type Validated } from "../schema/validation.ts";
import { WORKLOAD_KINDS } from "../kubernetes/workload.ts";

export const FLAG_ROLLOUT = { kind: "FlagRollout", plural: "flagrollouts", singular: "flagrollout" } as const;

/** The spec fields a plan may change: the value and how it is chosen, never where it goes. */
export const ROLLOUT_CHANGE_FIELDS = [
  "enabled",
  "defaultValue",
  "variants",
  "defaultVariant",
  "targeting",
  "evaluators",
] as const;
export type RolloutChangeField = (typeof ROLLOUT_CHANGE_FIELDS)[number];

export const WAVES_MAX = 16;
export const WAVE_CLUSTERS_MAX = 100;
/** A bake longer than a day is a schedule: make it a second plan. */
export const BAKE_SECONDS_MAX = 86_400;
export const DEFAULT_BAKE_SECONDS = 60;
/** How long a wave may take to be delivered and healthy before its gate fails. */
export const DEFAULT_PROGRESS_DEADLINE_SECONDS = 600;
export const PROGRESS_DEADLINE_SECONDS_MAX = 3_600;
export const WAVE_STAGES = ["Canary", "All"] as const;
export type WaveStage = (typeof WAVE_STAGES)[number];

const properties = FeatureFlagSpec.properties;
export const RolloutChange = Type.Object(
  {
    // Without the flag's default (true): Kubernetes would write it into every plan's change.
    enabled: Type.Optional(Type.Boolean({ description: "Disabled flags are withdrawn from raw channels." })),
    defaultValue: Type.Optional(properties.defaultValue),
    variants: Type.Optional(properties.variants),
    defaultVariant: Type.Optional(properties.defaultVariant),
    targeting: Type.Optional(properties.targeting),
    evaluators: Type.Optional(properties.evaluators),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    errorMessage: `must set at least one of ${ROLLOUT_CHANGE_FIELDS.join(", ")}`,
    description: "The flag's spec fields to set; the others stay as they are in each cluster.",
  },
);
export type RolloutChange = Type.Static<typeof RolloutChange>;

export const Wave = Type.Object(
  {
    clusters: Type.Optional(
      Type.Array(dns1123Label("A cluster id."), {
        minItems: 1,
        maxItems: WAVE_CLUSTERS_MAX,
        uniqueItems: true,
        "x-kubernetes-list-type": "set",
        description: "The clusters of the wave, by id.",
      }),
    ),
    clusterSelector: Type.Optional(
      Type.Object(
        {
          matchLabels: labelMap({
            minProperties: 1,
            maxProperties: 16,
            description: "Labels a ClusterConnection must all carry.",
            errorMessage: "must hold at least one label",
          }),
        },
        {
          additionalProperties: false,
          description: "The clusters of the wave, by ClusterConnection labels.",
        },
      ),
    ),
    bakeSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: BAKE_SECONDS_MAX,
        default: DEFAULT_BAKE_SECONDS,
        description: `How long the wave's workloads must stay healthy once delivered and healthy. Default ${DEFAULT_BAKE_SECONDS}.`,
      }),
    ),
    workloadPercent: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 99,
        description: `Change this percentage of each cluster's matching workloads first (the first in kind and name order, at least one, at most ${CANARY_WORKLOADS_MAX}); once they baked healthy, all of them. envVar and sidecar delivery only: one ConfigMap key serves every workload that mounts it.`,
      }),
    ),
  },
  {
    additionalProperties: false,
    "x-kubernetes-validations": [
      {
        rule: "has(self.clusters) != has(self.clusterSelector)",
        message: "a wave names its clusters with exactly one of clusters or clusterSelector",
      },
    ],
  },
);
export type Wave = Type.Static<typeof Wave>;

export const RFC3339 = "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$";

export const FlagRolloutSpec = Type.Object(
  {
    flag: Type.Object(
      { namespace: dns1123Label("The flag's namespace."), name: dns1123Label("The flag's name.") },
      {
        additionalProperties: false,
        description: "The FeatureFlag the plan changes, in every cluster of its waves.",
      },
    ),
    change: RolloutChange,
    startAt: Type.Optional(
      Type.String({
        maxLength: 64,
        pattern: RFC3339,
        errorMessage: 'must be an RFC 3339 time such as "2026-12-01T09:00:00Z"',
        description: "When the first wave starts (RFC 3339). Default: at once.",
      }),
    ),
    waves: Type.Array(Wave, {
      minItems: 1,
      maxItems: WAVES_MAX,
      description: "Applied in order; a wave starts when the one before it passed its gate.",
    }),
    progressDeadlineSeconds: Type.Optional(
      Type.Integer({
        minimum: 30,
        maximum: PROGRESS_DEADLINE_SECONDS_MAX,
        default: DEFAULT_PROGRESS_DEADLINE_SECONDS,
        description:
          "How long a wave may take to be delivered and healthy (from its start; after its bake: to be healthy again) before its gate fails.",
      }),
    ),
    paused: Type.Optional(Type.Boolean({ description: "No wave starts while set; gates keep watching." })),
    abort: Type.Optional(Type.Boolean({ description: "Roll back every applied wave and stop." })),
    skipBake: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: WAVES_MAX - 1,
        description: "The index of a wave whose remaining bake is skipped (its gate still needs it healthy).",
      }),
    ),
  },
  { additionalProperties: false },
);
export type FlagRolloutSpec = Type.Static<typeof FlagRolloutSpec>;

export {
  FINISHED_ROLLOUT_PHASES,
  ROLLOUT_PHASES,
  shownRolloutPhase,
  WAVE_PHASES,
  WORKLOAD_HEALTH,
  type RolloutPhase,
  type WavePhase,
  type WorkloadHealthState,
};

const Time = Type.String({ format: "date-time" });

export const RolloutWorkload = Type.Object({
  kind: Type.Enum([...WORKLOAD_KINDS]),
  name: Type.String({ maxLength: 253 }),
  health: Type.Enum([...WORKLOAD_HEALTH]),
  message: Type.Optional(Type.String({ maxLength: 1024 })),
  /** One of the workloads the wave's first step changes. */
  canary: Type.Optional(Type.Boolean()),
  /** Restart counts of its pods before the change (pods that had none are left out). */
  restartsBefore: Type.Optional(
    Type.Unsafe<Record<string, number>>({ type: "object", additionalProperties: { type: "integer" } }),
  ),
});
export type RolloutWorkload = Type.Static<typeof RolloutWorkload>;

/** A canary workload: by kind and name for the operator, by its pods' labels for the sidecar. */
export const CanaryWorkload = Type.Object({
  kind: Type.String({ maxLength: 64 }),
  name: Type.String({ maxLength: 253 }),
  /** The workload's spec.selector.matchLabels: a sidecar knows only its pod's labels. */
  matchLabels: Type.Unsafe<Record<string, string>>({
    type: "object",
    additionalProperties: { type: "string" },
  }),
});
export type CanaryWorkload = Type.Static<typeof CanaryWorkload>;

export const RolloutCluster = Type.Object({
  id: Type.String({ maxLength: DNS1123_LABEL_MAX, pattern: DNS1123_LABEL }),
  phase: Type.Enum([...WAVE_PHASES]),
  /** The changed fields as they were before the plan (rollback writes them back). */
  previous: Type.Optional(
    Type.Unsafe<Partial<FlagSpec>>({ type: "object", "x-kubernetes-preserve-unknown-fields": true }),
  ),
  /** Changed fields the flag did not set before the plan (rollback removes them). */
  previousAbsent: Type.Optional(Type.Array(Type.Enum([...ROLLOUT_CHANGE_FIELDS]), { maxItems: 6 })),
  deliveredAt: Type.Optional(Time),
  message: Type.Optional(Type.String({ maxLength: 4096 })),
  // The gate reads the targets the flag's status lists, at most STATUS_TARGETS_MAX.
  workloads: Type.Optional(Type.Array(RolloutWorkload, { maxItems: STATUS_TARGETS_MAX })),
  /** The workloads the wave's first step changes (a wave with workloadPercent). */
  canary: Type.Optional(Type.Array(CanaryWorkload, { maxItems: CANARY_WORKLOADS_MAX })),
});
export type RolloutCluster = Type.Static<typeof RolloutCluster>;

export const RolloutWave = Type.Object({
  phase: Type.Enum([...WAVE_PHASES]),
  /** A wave with workloadPercent: its canary workloads first, then all. */
  stage: Type.Optional(Type.Enum([...WAVE_STAGES])),
  clusters: Type.Array(RolloutCluster, { maxItems: WAVE_CLUSTERS_MAX }),
  startedAt: Type.Optional(Time),
  bakeUntil: Type.Optional(Time),
  finishedAt: Type.Optional(Time),
  message: Type.Optional(Type.String({ maxLength: 4096 })),
});
export type RolloutWave = Type.Static<typeof RolloutWave>;

export const Approval = Type.Object({
  decision: Type.Enum(["Approved", "Rejected"]),
  by: Type.String({ maxLength: 256 }),
  at: Time,
  comment: Type.Optional(Type.String({ maxLength: 1024 })),
  /** planChangeDigest of the spec approved: an edit of the plan afterwards voids the approval. */
  digest: Type.Optional(Type.String({ maxLength: 64, pattern: "^[0-9a-f]{64}$" })),
});
export type Approval = Type.Static<typeof Approval>;

export const FlagRolloutStatus = Type.Object({
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0, format: "int64" })),
  phase: Type.Optional(Type.Enum([...ROLLOUT_PHASES])),
  /** The index of the wave in flight (or the last one). */
  currentWave: Type.Optional(Type.Integer({ minimum: 0 })),
  waves: Type.Optional(Type.Array(RolloutWave, { maxItems: WAVES_MAX })),
  /** Why the plan needs a second user: the protected clusters it touches. */
  protectedClusters: Type.Optional(
    Type.Array(Type.String({ maxLength: DNS1123_LABEL_MAX }), { maxItems: 1600 }),
  ),
  approval: Type.Optional(Approval),
  startedAt: Type.Optional(Time),
  finishedAt: Type.Optional(Time),
  message: Type.Optional(Type.String({ maxLength: 4096 })),
  conditions: Type.Optional(Conditions),
});
export type FlagRolloutStatus = Type.Static<typeof FlagRolloutStatus>;

/** The annotation naming the user who created a plan through the API (approval is never theirs). */
export const ROLLOUT_AUTHOR_ANNOTATION = "svc.io/author";

/** A time in RFC 3339 that is also a real date (the pattern alone lets "2026-13-45" through). */
export function startAtError(value: string, field: string): FieldError | undefined {
  if (!new RegExp(RFC3339).test(value) || Number.isNaN(Date.parse(value)))
    return { field, message: 'must be an RFC 3339 time such as "2026-12-01T09:00:00Z"' };
  return undefined;
}

/**
 * Validates a FlagRollout spec: its shape, the wave rules the schema cannot state (each wave
 * names clusters one way, no cluster id listed twice), and the change as a flag spec would take
 * it (values of the flag's type are checked per cluster, where the type is known).
 */
export function validateRolloutSpec(input: unknown, prefix = ""): Validated<FlagRolloutSpec> {
  const shapeErrors = schemaErrors(FlagRolloutSpec, input, prefix);
  if (shapeErrors.length > 0) return { ok: false, errors: shapeErrors };
  const spec = input as FlagRolloutSpec;
  const errors: FieldError[] = [];
  if (spec.startAt !== undefined) {
    const error = startAtError(spec.startAt, fieldPath(prefix, "startAt"));
    if (error) errors.push(error);
  }
  const seen = new Map<string, number>();
  spec.waves.forEach((wave, index) => {
    const at = fieldPath(prefix, `waves.${index}`);
    if ((wave.clusters === undefined) === (wave.clusterSelector === undefined))
      errors.push({
        field: at,
        message: "must name its clusters with exactly one of clusters or clusterSelector",
      });
    for (const key of Object.keys(wave.clusterSelector?.matchLabels ?? {}))
      if (!isLabelKey(key))
        errors.push({
          field: fieldPath(at, `clusterSelector.matchLabels.${key}`),
          message: "is not a valid label key",
        });
    for (const id of wave.clusters ?? []) {
      const earlier = seen.get(id);
      if (earlier !== undefined)
        errors.push({
          field: fieldPath(at, "clusters"),
          message: `names cluster ${id}, which waves.${earlier} names too`,
        });
      else seen.set(id, index);
    }
  });
  if (spec.skipBake !== undefined && spec.skipBake >= spec.waves.length)
    errors.push({
      field: fieldPath(prefix, "skipBake"),
      message: `must name a wave (0 to ${spec.waves.length - 1})`,
    });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: spec };
}

export interface FlagRolloutResource {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata: ObjectMeta & { name: string; namespace: string };
  spec: FlagRolloutSpec;
  status?: FlagRolloutStatus | undefined;
}

/** A plan that will not change any more. */
export function isFinishedPlan(status: FlagRolloutStatus | undefined): boolean {
  return FINISHED_ROLLOUT_PHASES.includes(shownRolloutPhase(status));
}

/**
 * The unfinished plan of the same flag that goes before `plan` (one plan per flag at a time):
 * one already started, else the one created first (then by name). Undefined when none does.
 */
export function blockingPlan(
  plan: FlagRolloutResource,
  plans: readonly FlagRolloutResource[],
): string | undefined {
  if (plan.status?.waves !== undefined) return undefined;
  const created = (p: FlagRolloutResource) => new Date(p.metadata.creationTimestamp ?? 0).getTime();
  return plans.find(
    (other) =>
      other.metadata.name !== plan.metadata.name &&
      other.spec.flag.namespace === plan.spec.flag.namespace &&
      other.spec.flag.name === plan.spec.flag.name &&
      !isFinishedPlan(other.status) &&
      (other.status?.waves !== undefined ||
        created(other) < created(plan) ||
        (created(other) === created(plan) && other.metadata.name < plan.metadata.name)),
  )?.metadata.name;
}
