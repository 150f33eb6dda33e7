// A FlagRollout's phases (docs/safe-changes.md) and limits, in a module that imports nothing: the
// dashboard shares them, and the sidecar's canary check (rollout-canary.ts) reads them without
// loading the resource's TypeBox schema (flag-rollout.ts).

/** The most canary workloads a cluster's first step names (its annotation stays small). */
export const CANARY_WORKLOADS_MAX = 1000;

export const ROLLOUT_PHASES = [
  "Pending",
  "AwaitingApproval",
  "Scheduled",
  "Progressing",
  "Paused",
  "RollingBack",
  "Succeeded",
  "RolledBack",
  "Rejected",
  "Failed",
] as const;
export type RolloutPhase = (typeof ROLLOUT_PHASES)[number];
/**
 * The phase a plan is shown and filtered in: one the operator has not picked up yet (no phase
 * written) is Pending. The API, the dashboard, the CLI and the planner all read it here.
 */
export function shownRolloutPhase(status: { phase?: RolloutPhase | undefined } | undefined): RolloutPhase {
  return status?.phase ?? "Pending";
}

/** Phases a plan never leaves. */
export const FINISHED_ROLLOUT_PHASES: readonly RolloutPhase[] = [
  "Succeeded",
  "RolledBack",
  "Rejected",
  "Failed",
];

export const WAVE_PHASES = ["Pending", "Applying", "Baking", "Succeeded", "Failed", "RolledBack"] as const;
export type WavePhase = (typeof WAVE_PHASES)[number];
/** Waiting: a workload a wave holds back until its canary workloads passed. */
export const WORKLOAD_HEALTH = ["Healthy", "Progressing", "Unhealthy", "Waiting"] as const;
export type WorkloadHealthState = (typeof WORKLOAD_HEALTH)[number];
