// The next step of a FlagRollout (docs/safe-changes.md): given its spec, its status, the clock
// and what the operator observed in the clusters, the status to record, the flag writes to make
// and when to look again. The operator records the status before it writes, so a restart at any
// point resumes from the status: a wave is never applied twice and no gate is skipped.
import { setCondition } from "../kubernetes/conditions.ts";
import type { FlagPhase } from "../vocabulary.ts";
import type { FeatureFlagSpec } from "../flags/flag.ts";
import {
  DEFAULT_BAKE_SECONDS,
  DEFAULT_PROGRESS_DEADLINE_SECONDS,
  FINISHED_ROLLOUT_PHASES,
  type FlagRolloutSpec,
  type FlagRolloutStatus,
  type RolloutCluster,
  type RolloutWave,
} from "./flag-rollout.ts";
import { restartsBefore, workloadHealth, type ObservedWorkload } from "./rollout-health.ts";
import { chooseCanary, isCanaryWorkload, type FlagCanary } from "./rollout-canary.ts";
import {
  capturePrevious,
  changeErrors,
  changeTarget,
  holdsTarget,
  previousTarget,
  resolveWaves,
  workloadPercentErrors,
  type FieldTarget,
  type PlanCluster,
} from "./rollout-waves.ts";
import { approvalHolds } from "./rollout-approval.ts";
import { shownRolloutPhase } from "./phases.ts";
import { describeErrors } from "../schema/validation.ts";

/** How often an applied wave's workloads are looked at while it bakes. */
export const HEALTH_POLL_MS = 1000;

export interface ObservedFlag {
  spec: FeatureFlagSpec;
  /** The canary annotation it carries (readCanary). */
  canary?: FlagCanary | undefined;
  generation: number;
  observedGeneration: number | undefined;
  phase: FlagPhase | undefined;
  message: string | undefined;
}

/** One cluster of the plan this round: its flag and the flag's target workloads, with their pods. */
export type ClusterObservation =
  | { reachable: false; message: string }
  | { reachable: true; flag: ObservedFlag | undefined; workloads: readonly ObservedWorkload[] };

export interface PlanInput {
  /** The plan's name (its canary annotations name it). */
  name: string;
  spec: FlagRolloutSpec;
  generation: number;
  status: FlagRolloutStatus;
  now: Date;
  clusters: ReadonlyMap<string, PlanCluster>;
  observed: ReadonlyMap<string, ClusterObservation>;
  /** The name of an unfinished plan of the same flag created before this one. */
  blockedBy?: string | undefined;
}

export interface PlanEvent {
  type: "Normal" | "Warning";
  reason: string;
  message: string;
}

export interface FlagWrite {
  clusterId: string;
  target: FieldTarget;
}

export interface PlanDecision {
  status: FlagRolloutStatus;
  writes: FlagWrite[];
  events: PlanEvent[];
  /** Look again after this long; undefined: only when something changes. */
  requeueAfterMs: number | undefined;
}

const APPLIED = new Set(["Applying", "Baking", "Succeeded", "Failed"]);

/** The clusters whose flag and workloads the next decision needs. */
export function clustersToObserve(
  spec: FlagRolloutSpec,
  status: FlagRolloutStatus,
  clusters: ReadonlyMap<string, PlanCluster>,
): string[] {
  const waves = status.waves;
  if (waves === undefined) {
    const resolved = resolveWaves(spec.waves, clusters);
    return resolved.ok ? (resolved.waves[0] ?? []) : [];
  }
  if (FINISHED_ROLLOUT_PHASES.includes(shownRolloutPhase(status))) return [];
  if (status.phase === "RollingBack" || spec.abort === true)
    return waves.flatMap((w) => w.clusters.filter((c) => APPLIED.has(c.phase)).map((c) => c.id));
  const current = status.currentWave ?? 0;
  return waves.slice(current, current + 2).flatMap((w) => w.clusters.map((c) => c.id));
}

/** One round of a plan. Pure: the same input always gives the same decision. */
export function decidePlan(input: PlanInput): PlanDecision {
  return new Round(input).run();
}

class Round {
  readonly #input: PlanInput;
  readonly status: FlagRolloutStatus;
  readonly writes: FlagWrite[] = [];
  readonly events: PlanEvent[] = [];
  requeueAfterMs: number | undefined;

  constructor(input: PlanInput) {
    this.#input = input;
    this.status = structuredClone({ ...input.status, observedGeneration: input.generation });
  }

  run(): PlanDecision {
    const phase = shownRolloutPhase(this.status);
    if (!FINISHED_ROLLOUT_PHASES.includes(phase)) {
      if (this.status.waves === undefined) this.#beforeStart();
      if (this.status.waves !== undefined && !this.#finished()) {
        if (this.#input.spec.abort === true && this.status.phase !== "RollingBack")
          this.#halt("Aborted", "aborted by a user: rolling back every applied wave");
        if (this.status.phase === "RollingBack") this.#rollBack();
        else if (this.#approved(this.status.protectedClusters ?? [])) this.#advance();
      }
    }
    return {
      status: this.status,
      writes: this.writes,
      events: this.events,
      requeueAfterMs: this.requeueAfterMs,
    };
  }

  #finished(): boolean {
    return FINISHED_ROLLOUT_PHASES.includes(shownRolloutPhase(this.status));
  }

  #now(): string {
    return this.#input.now.toISOString();
  }

  #event(type: PlanEvent["type"], reason: string, message: string): void {
    this.events.push({ type, reason, message });
  }

  #finish(phase: "Succeeded" | "RolledBack" | "Rejected" | "Failed", reason: string, message: string): void {
    this.status.phase = phase;
    this.status.message = message;
    this.status.finishedAt = this.#now();
    this.#condition("False", reason, message);
    this.#event(phase === "Succeeded" ? "Normal" : "Warning", reason, message);
  }

  #condition(status: "True" | "False", reason: string, message: string): void {
    this.status.conditions = setCondition(
      this.status.conditions,
      { type: "Progressing", status, reason, message, observedGeneration: this.#input.generation },
      this.#input.now,
    );
  }

  #setPhase(phase: NonNullable<FlagRolloutStatus["phase"]>, reason: string, message: string): void {
    if (this.status.phase === phase && this.status.message === message) return;
    this.status.phase = phase;
    this.status.message = message;
    this.#condition(phase === "Progressing" || phase === "RollingBack" ? "True" : "False", reason, message);
    this.#event(phase === "RollingBack" ? "Warning" : "Normal", reason, message);
  }

  #wakeAt(time: number): void {
    const delay = Math.max(0, time - this.#input.now.getTime());
    this.requeueAfterMs = this.requeueAfterMs === undefined ? delay : Math.min(this.requeueAfterMs, delay);
  }

  /** Not started yet: refusals, approval, the start time; then the waves are fixed and it starts. */
  #beforeStart(): void {
    const { spec, clusters, blockedBy, now } = this.#input;
    if (blockedBy !== undefined) {
      this.#finish(
        "Failed",
        "Conflict",
        `plan ${blockedBy} of the same flag is unfinished; one plan per flag at a time`,
      );
      return;
    }
    const resolved = resolveWaves(spec.waves, clusters);
    if (!resolved.ok) {
      this.#finish("Failed", "InvalidWaves", `${resolved.field}: ${resolved.message}`);
      return;
    }
    if (spec.abort === true) {
      this.#finish("RolledBack", "Aborted", "aborted before its first wave: nothing was changed");
      return;
    }
    const guarded = resolved.waves.flat().filter((id) => clusters.get(id)?.protected === true);
    if (guarded.length > 0) {
      this.status.protectedClusters = guarded;
      const approval = this.status.approval;
      if (approval?.decision === "Rejected") {
        this.#finish(
          "Rejected",
          "Rejected",
          `rejected by ${approval.by}${approval.comment ? `: ${approval.comment}` : ""}`,
        );
        return;
      }
      if (!this.#approved(guarded)) return;
    }
    if (spec.startAt !== undefined && Date.parse(spec.startAt) > now.getTime()) {
      this.#wakeAt(Date.parse(spec.startAt));
      this.#setPhase("Scheduled", "Scheduled", `starts at ${spec.startAt}`);
      return;
    }
    this.status.waves = resolved.waves.map((ids) => ({
      phase: "Pending",
      clusters: ids.map((id) => ({ id, phase: "Pending" })),
    }));
    this.status.currentWave = 0;
    this.status.startedAt = this.#now();
    this.#setPhase("Progressing", "Started", `wave 0 of ${resolved.waves.length} starting`);
  }

  /**
   * Whether a plan touching `guarded` (protected clusters) may go on: only under an approval of
   * the plan as it is now. One given before an edit of the plan is dropped, and it waits again.
   */
  #approved(guarded: readonly string[]): boolean {
    const approval = this.status.approval;
    if (guarded.length === 0 || approvalHolds(this.#input.spec, approval)) return true;
    if (approval?.decision === "Rejected" && this.status.waves !== undefined) {
      // Asked again mid-way (the plan was edited) and rejected: what was applied goes back.
      this.#halt("Rejected", `rejected by ${approval.by}: rolling back every applied wave`);
      this.#rollBack();
      return false;
    }
    const waiting = `touches protected cluster${guarded.length > 1 ? "s" : ""} ${guarded.join(", ")}: waiting for a second user's approval`;
    // Why it waits again stays in the message until a decision, not only for the round that saw it.
    let message =
      this.status.phase === "AwaitingApproval" && this.status.message?.endsWith(`; ${waiting}`)
        ? this.status.message
        : waiting;
    if (approval?.decision === "Approved") {
      delete this.status.approval;
      message = `the approval by ${approval.by} was of the plan before an edit; ${waiting}`;
      this.#event(
        "Warning",
        "ApprovalVoided",
        `the plan's change, waves or schedule changed after ${approval.by} approved it at ${approval.at}: it needs approval again`,
      );
    }
    this.#setPhase("AwaitingApproval", "AwaitingApproval", message);
    return false;
  }

  /** Runs waves forward until one has to wait. */
  #advance(): void {
    const waves = this.status.waves ?? [];
    const forward = this.#forwardPhase();
    if (this.status.phase !== forward)
      this.#setPhase(
        forward,
        forward === "Paused" ? "Paused" : "Resumed",
        forward === "Paused" ? "paused: no wave starts; gates keep watching" : "resumed",
      );
    for (;;) {
      const index = this.status.currentWave ?? 0;
      const wave = waves[index];
      if (wave === undefined) return;
      if (wave.phase === "Pending") {
        if (this.#input.spec.paused === true) {
          this.#setPhase("Paused", "Paused", `paused before wave ${index}`);
          return;
        }
        if (!this.#startWave(index, wave)) return;
      }
      if (!this.#gate(index, wave)) return;
      if (index === waves.length - 1) {
        this.#finish("Succeeded", "Succeeded", `every wave passed its gate (${waves.length})`);
        return;
      }
      this.status.currentWave = index + 1;
    }
  }

  /** Captures what the wave's clusters hold and writes the change; false when it must wait. */
  #startWave(index: number, wave: RolloutWave): boolean {
    const { spec } = this.#input;
    const seen: { cluster: RolloutCluster; flag: ObservedFlag; workloads: readonly ObservedWorkload[] }[] =
      [];
    for (const cluster of wave.clusters) {
      const observed = this.#input.observed.get(cluster.id);
      if (observed === undefined || !observed.reachable) {
        this.#setPhase(
          this.#forwardPhase(),
          "Waiting",
          `wave ${index}: cluster ${cluster.id} is not reachable${observed ? `: ${observed.message}` : ""}`,
        );
        this.requeueAfterMs = HEALTH_POLL_MS;
        return false;
      }
      const problem =
        observed.flag === undefined
          ? `flag ${spec.flag.namespace}/${spec.flag.name} not found`
          : describeErrors([
              ...workloadPercentErrors(observed.flag.spec, spec.waves[index], index),
              ...changeErrors(observed.flag.spec, spec.change, "change"),
            ]);
      if (problem !== "") {
        this.#failWave(index, cluster, `cluster ${cluster.id}: ${problem}`);
        return false;
      }
      seen.push({ cluster, flag: observed.flag as ObservedFlag, workloads: observed.workloads });
    }
    const percent = spec.waves[index]?.workloadPercent;
    for (const { cluster, flag, workloads } of seen) {
      const canary = percent === undefined ? undefined : chooseCanary(workloads, percent);
      Object.assign(cluster, capturePrevious(flag.spec, spec.change), {
        phase: "Applying",
        workloads: workloads.map((w) => {
          const inCanary = canary?.includes(w);
          return {
            kind: w.kind,
            name: w.name,
            ...(canary === undefined ? {} : { canary: inCanary }),
            ...(canary === undefined || inCanary === true
              ? { health: "Progressing" }
              : { health: "Waiting", message: "held back until the canary workloads passed" }),
            restartsBefore: restartsBefore(w),
          };
        }),
        ...(canary === undefined
          ? {}
          : {
              canary: canary.map((w) => ({ kind: w.kind, name: w.name, matchLabels: w.matchLabels ?? {} })),
            }),
      });
      this.#write(cluster.id, this.#target(cluster));
    }
    if (wave.clusters.some((c) => c.canary !== undefined)) wave.stage = "Canary";
    wave.phase = "Applying";
    wave.startedAt = this.#now();
    this.#setPhase(
      this.#forwardPhase(),
      "WaveStarted",
      `wave ${index}: applying to ${wave.stage === "Canary" ? "the canary workloads of " : ""}${wave.clusters.map((c) => c.id).join(", ")}`,
    );
    return true;
  }

  /** What a cluster's flag must hold at the wave's stage: the change, with its canary while it has one. */
  #target(cluster: RolloutCluster, stage: RolloutWave["stage"] = "Canary"): FieldTarget {
    if (stage !== "Canary" || cluster.canary === undefined) return changeTarget(this.#input.spec.change);
    const canary: FlagCanary = {
      plan: this.#input.name,
      workloads: cluster.canary,
      held: previousTarget(cluster),
    };
    return changeTarget(this.#input.spec.change, canary);
  }

  /** The canary workloads passed their gate: the wave goes on to all its workloads. */
  #widen(index: number, wave: RolloutWave): void {
    wave.stage = "All";
    wave.phase = "Applying";
    wave.startedAt = this.#now();
    delete wave.bakeUntil;
    for (const cluster of wave.clusters) {
      cluster.phase = "Applying";
      delete cluster.deliveredAt;
      const observed = this.#input.observed.get(cluster.id);
      const workloads = observed?.reachable === true ? observed.workloads : [];
      for (const record of cluster.workloads ?? []) {
        if (record.canary !== false) continue;
        // Their baseline is now: a restart while the canary baked was not this change's.
        const now = workloads.find((w) => w.kind === record.kind && w.name === record.name);
        record.health = "Progressing";
        delete record.message;
        if (now !== undefined) record.restartsBefore = restartsBefore(now);
      }
    }
    this.#event("Normal", "CanaryPassed", `wave ${index}: the canary workloads passed; applying to all`);
  }

  /** Queues a write to a cluster's flag, once per round. */
  #write(clusterId: string, target: FieldTarget): void {
    if (!this.writes.some((w) => w.clusterId === clusterId)) this.writes.push({ clusterId, target });
  }

  #forwardPhase(): "Progressing" | "Paused" {
    return this.#input.spec.paused === true ? "Paused" : "Progressing";
  }

  /** Watches an applied wave; true once its gate passed. */
  #gate(index: number, wave: RolloutWave): boolean {
    const { spec, now } = this.#input;
    const deadlineMs = (spec.progressDeadlineSeconds ?? DEFAULT_PROGRESS_DEADLINE_SECONDS) * 1000;
    const bakeMs = (spec.waves[index]?.bakeSeconds ?? DEFAULT_BAKE_SECONDS) * 1000;
    let waiting = "";
    for (const cluster of wave.clusters) {
      const observed = this.#input.observed.get(cluster.id);
      if (observed === undefined || !observed.reachable) {
        waiting ||= `cluster ${cluster.id} is not reachable`;
        continue;
      }
      const flag = observed.flag;
      if (flag === undefined)
        return this.#failWave(index, cluster, `cluster ${cluster.id}: the flag was deleted during the plan`);
      const target = this.#target(cluster, wave.stage);
      if (!holdsTarget(flag, target)) {
        // Not written yet (this round, or a restart between recording and writing): written now.
        this.#write(cluster.id, target);
        waiting ||= `cluster ${cluster.id}: writing the change`;
        continue;
      }
      const current = flag.observedGeneration !== undefined && flag.observedGeneration >= flag.generation;
      if (current && flag.phase === "Degraded")
        return this.#failWave(
          index,
          cluster,
          `cluster ${cluster.id}: delivery degraded: ${flag.message ?? ""}`,
        );
      for (const workload of observed.workloads) {
        if (target.canary !== undefined && !isCanaryWorkload(target.canary, workload.kind, workload.name))
          continue;
        const record = cluster.workloads?.find((w) => w.kind === workload.kind && w.name === workload.name);
        const health = workloadHealth(workload, record?.restartsBefore ?? {});
        if (record !== undefined) Object.assign(record, { health: health.state, message: health.message });
        if (health.state === "Unhealthy")
          return this.#failWave(index, cluster, `cluster ${cluster.id}: ${health.message}`);
        if (health.state === "Progressing") waiting ||= `cluster ${cluster.id}: ${health.message}`;
      }
      if (cluster.phase === "Applying") {
        if (!current || flag.phase === "Pending") {
          waiting ||= `cluster ${cluster.id}: delivering`;
          continue;
        }
        cluster.phase = "Baking";
        cluster.deliveredAt = this.#now();
      }
    }
    // The bake counts from when every cluster has the change delivered and every workload is
    // healthy: a rollout slower than the bake must not eat it.
    if (wave.clusters.every((c) => c.phase === "Baking") && waiting === "" && wave.bakeUntil === undefined) {
      wave.phase = "Baking";
      wave.bakeUntil = new Date(now.getTime() + bakeMs).toISOString();
      this.#event("Normal", "Baking", `wave ${index}: delivered and healthy; baking until ${wave.bakeUntil}`);
    }
    // Until it bakes, a wave has the progress deadline from its start to be delivered and healthy;
    // once baking, from the bake's end.
    const bakeEnd = wave.bakeUntil === undefined ? undefined : Date.parse(wave.bakeUntil);
    const deadline = (bakeEnd ?? Date.parse(wave.startedAt ?? this.#now())) + deadlineMs;
    const baked = bakeEnd !== undefined && (now.getTime() >= bakeEnd || spec.skipBake === index);
    if (baked && waiting === "" && wave.stage === "Canary") {
      this.#widen(index, wave);
      return this.#gate(index, wave);
    }
    if (baked && waiting === "") {
      wave.phase = "Succeeded";
      wave.finishedAt = this.#now();
      wave.message = "passed its gate";
      for (const cluster of wave.clusters) cluster.phase = "Succeeded";
      this.#event("Normal", "WaveSucceeded", `wave ${index}: passed its gate`);
      return true;
    }
    if (now.getTime() >= deadline) {
      const stuck = wave.clusters.find((c) => c.phase !== "Baking") ?? wave.clusters[0];
      const when = bakeEnd === undefined ? "after it started" : "after its bake";
      if (stuck !== undefined)
        return this.#failWave(index, stuck, `not healthy ${deadlineMs / 1000} s ${when}: ${waiting}`);
    }
    wave.message = waiting === "" ? `baking until ${wave.bakeUntil ?? ""}` : waiting;
    this.requeueAfterMs = HEALTH_POLL_MS;
    if (bakeEnd !== undefined && waiting === "") this.#wakeAt(bakeEnd);
    return false;
  }

  /** A failed gate: the wave fails, and every applied wave is rolled back (from the next round). */
  #failWave(index: number, cluster: RolloutCluster, message: string): false {
    const wave = this.status.waves?.[index];
    if (wave !== undefined) {
      wave.phase = "Failed";
      wave.message = message;
      wave.finishedAt = this.#now();
    }
    if (APPLIED.has(cluster.phase)) cluster.phase = "Failed";
    cluster.message = message;
    this.#halt("GateFailed", `wave ${index} failed its gate: ${message}`);
    return false;
  }

  #halt(reason: string, message: string): void {
    this.#setPhase("RollingBack", reason, message);
    this.requeueAfterMs = 0;
  }

  /** Writes every applied cluster's previous fields back; RolledBack once all hold them. */
  #rollBack(): void {
    const waves = this.status.waves ?? [];
    let pending = false;
    for (const wave of waves) {
      for (const cluster of wave.clusters.filter((c) => APPLIED.has(c.phase))) {
        const observed = this.#input.observed.get(cluster.id);
        if (observed === undefined || !observed.reachable) {
          pending = true;
          continue;
        }
        const target = previousTarget(cluster);
        if (observed.flag !== undefined && !holdsTarget(observed.flag, target)) {
          this.#write(cluster.id, target);
          pending = true;
          continue;
        }
        cluster.phase = "RolledBack";
        cluster.message =
          observed.flag === undefined ? "the flag was deleted: nothing to restore" : "restored";
      }
      if (
        wave.clusters.some((c) => c.phase === "RolledBack") &&
        !wave.clusters.some((c) => APPLIED.has(c.phase))
      )
        wave.phase = "RolledBack";
    }
    if (pending) {
      this.requeueAfterMs = HEALTH_POLL_MS;
      return;
    }
    const reason = this.status.conditions?.find((c) => c.type === "Progressing")?.reason ?? "GateFailed";
    const restored = waves.some((w) => w.clusters.some((c) => c.phase === "RolledBack"));
    if (restored)
      this.#finish("RolledBack", reason, `${this.status.message ?? ""}; every applied wave rolled back`);
    else this.#finish("Failed", reason, `${this.status.message ?? ""}; nothing had been changed`);
  }
}
