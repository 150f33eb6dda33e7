/**
 * A plan's timeline: its waves, each wave's clusters, each cluster's workloads, with their
 * phases and the operator's messages as it wrote them. Before the operator fixes the waves
 * (status.waves), the timeline shows the waves as planned (spec.waves), all Pending.
 */
import { countdownText, durationText, healthBadge, waveBadge, type Badge } from "./rollout-model.ts";
import type { RolloutView, WavePhase, WaveSpec } from "./types.ts";

/** The CRD's default bake (core's DEFAULT_BAKE_SECONDS), for a wave that sets none. */
export const DEFAULT_BAKE_SECONDS = 60;

export interface TimelineWorkload {
  key: string;
  /** "Deployment web" */
  title: string;
  badge: Badge;
  message: string;
}

export interface TimelineCluster {
  id: string;
  phase: WavePhase;
  badge: Badge;
  message: string;
  deliveredAt: string | undefined;
  workloads: TimelineWorkload[];
}

export interface TimelineWave {
  index: number;
  /** "Wave 0 (1 of 2)": the index the operator's messages and the API's fields use, and the count. */
  title: string;
  phase: WavePhase;
  badge: Badge;
  /** The wave in flight (or the last one reached). */
  current: boolean;
  /** How the plan names the wave's clusters: "clusters local, edge" or "clusters labelled region=eu". */
  target: string;
  /** "bake 1 h", and the share of workloads changed first with the step it is at */
  bake: string;
  startedAt: string | undefined;
  bakeUntil: string | undefined;
  finishedAt: string | undefined;
  message: string;
  clusters: TimelineCluster[];
}

export function waveTarget(wave: WaveSpec | undefined): string {
  if (wave?.clusters !== undefined) return `clusters ${wave.clusters.join(", ")}`;
  const labels = Object.entries(wave?.clusterSelector?.matchLabels ?? {});
  if (labels.length > 0) return `clusters labelled ${labels.map(([k, v]) => `${k}=${v}`).join(", ")}`;
  return "no clusters";
}

export function bakeText(wave: WaveSpec | undefined, stage?: "Canary" | "All"): string {
  const bake = `bake ${durationText(wave?.bakeSeconds ?? DEFAULT_BAKE_SECONDS)}`;
  if (wave?.workloadPercent === undefined) return bake;
  const step = stage === undefined ? "" : stage === "Canary" ? " (canary step)" : " (all workloads step)";
  return `${bake}; ${wave.workloadPercent} % of each cluster's workloads first${step}`;
}

/** The timeline of a plan as its view holds it now. */
export function timelineOf(view: Pick<RolloutView, "spec" | "status">): TimelineWave[] {
  const { spec, status } = view;
  const total = status.waves?.length ?? spec.waves.length;
  const title = (index: number) => `Wave ${index} (${index + 1} of ${total})`;
  if (status.waves === undefined) {
    return spec.waves.map((wave, index) => ({
      index,
      title: title(index),
      phase: "Pending",
      badge: waveBadge("Pending"),
      current: false,
      target: waveTarget(wave),
      bake: bakeText(wave),
      startedAt: undefined,
      bakeUntil: undefined,
      finishedAt: undefined,
      message: "",
      clusters: (wave.clusters ?? []).map((id) => ({
        id,
        phase: "Pending",
        badge: waveBadge("Pending"),
        message: "",
        deliveredAt: undefined,
        workloads: [],
      })),
    }));
  }
  const current = status.currentWave ?? 0;
  return status.waves.map((wave, index) => ({
    index,
    title: title(index),
    phase: wave.phase,
    badge: waveBadge(wave.phase),
    current: index === current,
    target: waveTarget(spec.waves[index]),
    bake: bakeText(spec.waves[index], wave.stage),
    startedAt: wave.startedAt,
    bakeUntil: wave.bakeUntil,
    finishedAt: wave.finishedAt,
    message: wave.message ?? "",
    clusters: wave.clusters.map((cluster) => ({
      id: cluster.id,
      phase: cluster.phase,
      badge: waveBadge(cluster.phase),
      message: cluster.message ?? "",
      deliveredAt: cluster.deliveredAt,
      workloads: (cluster.workloads ?? []).map((workload) => ({
        key: `${workload.kind}/${workload.name}`,
        title: `${workload.kind} ${workload.name}${workload.canary === true ? " (canary)" : ""}`,
        badge: healthBadge(workload.health),
        message: workload.message ?? "",
      })),
    })),
  }));
}

/** What the change sets, for people: "defaultValue true, enabled" and the other fields by name. */
export function changeSummary(change: RolloutView["spec"]["change"]): string {
  const parts: string[] = [];
  if (change.defaultValue !== undefined) parts.push(`defaultValue ${change.defaultValue}`);
  if (change.enabled !== undefined) parts.push(change.enabled ? "enabled" : "disabled");
  for (const field of ["variants", "defaultVariant", "targeting", "evaluators"] as const)
    if (change[field] !== undefined) parts.push(field);
  return parts.join(", ");
}

/** The bake countdown shown on a wave: only while it bakes ("4 min 2 s left", then "baked"). */
export function waveCountdown(
  wave: Pick<TimelineWave, "phase" | "bakeUntil">,
  now: number,
): string | undefined {
  return wave.phase === "Baking" ? countdownText(wave.bakeUntil, now) : undefined;
}
