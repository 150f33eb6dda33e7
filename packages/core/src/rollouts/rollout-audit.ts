// The audit log's view of the operator's steps on a FlagRollout (docs/safe-changes.md "Audit"):
// every step a plan's status records, each with a key that names it for good, so that recording
// the steps of every status seen, by every API replica and after every restart, records each
// step once.
import { DEFAULT_BAKE_SECONDS, type FlagRolloutResource, type RolloutWave } from "./flag-rollout.ts";

export interface RolloutStep {
  /** Unique for this step of this plan (the plan's uid, then the step). */
  key: string;
  /** When it happened, as the status records it. */
  at: string;
  step: string;
  message: string;
  wave?: number;
}

function waveSteps(
  uid: string,
  index: number,
  wave: RolloutWave,
  bakeSeconds: number,
  finishedAt: string | undefined,
): RolloutStep[] {
  const steps: RolloutStep[] = [];
  const clusters = wave.clusters.map((c) => c.id).join(", ");
  const add = (step: string, at: string | undefined, message: string) => {
    if (at !== undefined) steps.push({ key: `${uid}/wave/${index}/${step}`, at, step, message, wave: index });
  };
  add("WaveStarted", wave.startedAt, `wave ${index}: applying to ${clusters}`);
  if (wave.bakeUntil !== undefined)
    add(
      "Baking",
      new Date(Date.parse(wave.bakeUntil) - bakeSeconds * 1000).toISOString(),
      `wave ${index}: delivered and healthy; baking until ${wave.bakeUntil}`,
    );
  if (wave.phase === "Succeeded" || wave.phase === "Failed" || wave.phase === "RolledBack")
    add(
      wave.phase === "Succeeded" ? "WaveSucceeded" : "WaveFailed",
      wave.finishedAt,
      `wave ${index}: ${wave.message ?? wave.phase}`,
    );
  if (wave.phase === "RolledBack") add("WaveRolledBack", finishedAt, `wave ${index}: rolled back`);
  return steps;
}

/** Every step the plan's status records, oldest first. */
export function rolloutSteps(plan: FlagRolloutResource): RolloutStep[] {
  const uid = plan.metadata.uid ?? plan.metadata.name;
  const status = plan.status;
  if (status === undefined) return [];
  const transition = status.conditions?.find((c) => c.type === "Progressing");
  const steps: RolloutStep[] = [];
  if (status.startedAt !== undefined)
    steps.push({
      key: `${uid}/Started`,
      at: status.startedAt,
      step: "Started",
      message: `${status.waves?.length ?? 0} waves`,
    });
  if (status.phase === "AwaitingApproval" || status.phase === "Scheduled" || status.phase === "RollingBack")
    if (transition !== undefined)
      steps.push({
        key: `${uid}/${status.phase}`,
        at: transition.lastTransitionTime,
        step: status.phase,
        message: status.message ?? "",
      });
  (status.waves ?? []).forEach((wave, index) =>
    steps.push(
      ...waveSteps(
        uid,
        index,
        wave,
        plan.spec.waves[index]?.bakeSeconds ?? DEFAULT_BAKE_SECONDS,
        status.finishedAt,
      ),
    ),
  );
  if (status.finishedAt !== undefined && status.phase !== undefined)
    steps.push({
      key: `${uid}/${status.phase}`,
      at: status.finishedAt,
      step: status.phase,
      message: status.message ?? "",
    });
  return steps.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}
