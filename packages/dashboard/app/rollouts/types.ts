/** A FlagRollout plan as the API shows it (docs/api.md "Rollouts"), in core's shapes. */
import type { FlagRolloutSpec, FlagRolloutStatus, Wave } from "@svc/core/browser";

export {
  FINISHED_ROLLOUT_PHASES as FINISHED_PHASES,
  ROLLOUT_PHASES,
  shownRolloutPhase,
  type RolloutPhase,
  type WavePhase,
  type WorkloadHealthState as WorkloadHealth,
} from "@svc/core/browser";
export type {
  Approval,
  RolloutView,
  RolloutChange,
  RolloutCluster,
  RolloutCreateBody,
  RolloutWave,
  RolloutWorkload,
} from "@svc/core/browser";
export type RolloutSpec = FlagRolloutSpec;
export type RolloutStatus = FlagRolloutStatus;
export type WaveSpec = Wave;
