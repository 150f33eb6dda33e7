/**
 * What the pages say of a plan, as pure functions of its view: badges for every phase, the wave
 * in flight, the bake countdown, and which actions a user is offered in which state.
 */
import {
  FINISHED_PHASES,
  ROLLOUT_PHASES,
  shownRolloutPhase,
  type RolloutPhase,
  type RolloutView,
  type WavePhase,
  type WorkloadHealth,
} from "./types.ts";

export interface Badge {
  label: string;
  /** The badge's colour class: ok, warn, bad or "" (neutral). */
  tone: "ok" | "warn" | "bad" | "";
}

const PLAN_BADGES: Readonly<Record<RolloutPhase, Badge>> = {
  Pending: { label: "Pending", tone: "" },
  AwaitingApproval: { label: "Awaiting approval", tone: "warn" },
  Scheduled: { label: "Scheduled", tone: "" },
  Progressing: { label: "Progressing", tone: "warn" },
  Paused: { label: "Paused", tone: "warn" },
  RollingBack: { label: "Rolling back", tone: "bad" },
  Succeeded: { label: "Succeeded", tone: "ok" },
  RolledBack: { label: "Rolled back", tone: "bad" },
  Rejected: { label: "Rejected", tone: "" },
  Failed: { label: "Failed", tone: "bad" },
};

const WAVE_BADGES: Readonly<Record<WavePhase, Badge>> = {
  Pending: { label: "Pending", tone: "" },
  Applying: { label: "Applying", tone: "warn" },
  Baking: { label: "Baking", tone: "warn" },
  Succeeded: { label: "Succeeded", tone: "ok" },
  Failed: { label: "Failed", tone: "bad" },
  RolledBack: { label: "Rolled back", tone: "bad" },
};

const HEALTH_BADGES: Readonly<Record<WorkloadHealth, Badge>> = {
  Healthy: { label: "Healthy", tone: "ok" },
  Progressing: { label: "Progressing", tone: "warn" },
  Unhealthy: { label: "Unhealthy", tone: "bad" },
  Waiting: { label: "Held back", tone: "" },
};

/** The plan's phase as the API shows and filters it: Pending until the operator writes one. */
export function planPhase(view: Pick<RolloutView, "status">): RolloutPhase {
  return shownRolloutPhase(view.status);
}

export function isFinished(view: Pick<RolloutView, "status">): boolean {
  return FINISHED_PHASES.includes(planPhase(view));
}

export const planBadge = (phase: RolloutPhase): Badge => PLAN_BADGES[phase];
export const waveBadge = (phase: WavePhase): Badge => WAVE_BADGES[phase];
export const healthBadge = (health: WorkloadHealth): Badge => HEALTH_BADGES[health];

/** "2 / 3": the wave in flight (or the last one) of all; "— / 3" before the first starts. */
export function currentWaveText(view: Pick<RolloutView, "spec" | "status">): string {
  const total = view.status.waves?.length ?? view.spec.waves.length;
  if (view.status.waves === undefined) return `— / ${total}`;
  return `${(view.status.currentWave ?? 0) + 1} / ${total}`;
}

/** "1 h 2 min", "5 min 3 s", "42 s", "0 s": a duration in its two largest units. */
export function durationText(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  if (m > 0) return s > 0 ? `${m} min ${s} s` : `${m} min`;
  return `${s} s`;
}

/**
 * The bake countdown of a wave: "12 min 3 s left" while it bakes, "baked" once its time passed
 * (the gate may still wait for health), undefined when it has no bake time yet.
 */
export function countdownText(bakeUntil: string | undefined, now: number): string | undefined {
  if (bakeUntil === undefined) return undefined;
  const left = Math.ceil((Date.parse(bakeUntil) - now) / 1000);
  if (Number.isNaN(left)) return undefined;
  return left > 0 ? `${durationText(left)} left` : "baked";
}

export type PlanAction = "pause" | "resume" | "skip-bake" | "abort" | "approve" | "reject" | "delete";

/** The API route each action calls, as the access table names it. */
export const ACTION_ROUTES: Readonly<Record<PlanAction, string>> = {
  pause: "POST /api/v1/rollouts/{name}/pause",
  resume: "POST /api/v1/rollouts/{name}/resume",
  "skip-bake": "POST /api/v1/rollouts/{name}/skip-bake",
  abort: "POST /api/v1/rollouts/{name}/abort",
  approve: "POST /api/v1/rollouts/{name}/approve",
  reject: "POST /api/v1/rollouts/{name}/reject",
  delete: "DELETE /api/v1/rollouts/{name}",
};

/**
 * The actions a user is offered on a plan: by its state (the API refuses the others with a
 * 409), by the role (`can`, the API's access table), and Approve never to the plan's author.
 * A plan being aborted or rolled back offers nothing until it is finished; then only Delete.
 */
export function planActions(
  view: RolloutView,
  user: { username: string },
  can: (route: string) => boolean,
): PlanAction[] {
  const phase = planPhase(view);
  const actions: PlanAction[] = [];
  if (isFinished(view)) actions.push("delete");
  else if (view.spec.abort !== true && phase !== "RollingBack") {
    if (phase === "AwaitingApproval" && view.status.approval === undefined) {
      if (view.author === "" || view.author !== user.username) actions.push("approve");
      actions.push("reject");
    }
    actions.push(view.spec.paused === true ? "resume" : "pause");
    const current = view.status.waves?.[view.status.currentWave ?? 0];
    if (current?.phase === "Baking" && view.spec.skipBake !== view.status.currentWave)
      actions.push("skip-bake");
    actions.push("abort");
  }
  return actions.filter((action) => can(ACTION_ROUTES[action]));
}

/**
 * Where a plan acts: every cluster of its waves, in its flag's namespace. The clusters the
 * operator resolved (status) when it has; before, the ids the waves name and the listed clusters
 * their selectors match. A plan's actions need the role in every one of them, as the API decides.
 */
export function planScopes(
  view: Pick<RolloutView, "spec" | "status">,
  clusters: readonly { id: string; labels: Readonly<Record<string, string>> }[],
): { clusterId: string; namespace: string }[] {
  const ids = new Set<string>();
  for (const wave of view.status.waves ?? []) for (const cluster of wave.clusters) ids.add(cluster.id);
  for (const wave of view.spec.waves) {
    for (const id of wave.clusters ?? []) ids.add(id);
    const wanted = Object.entries(wave.clusterSelector?.matchLabels ?? {});
    if (wanted.length === 0) continue;
    for (const cluster of clusters)
      if (wanted.every(([key, value]) => cluster.labels[key] === value)) ids.add(cluster.id);
  }
  return [...ids].map((clusterId) => ({ clusterId, namespace: view.spec.flag.namespace }));
}

/** A plan's flag as `namespace/name`, what the list's `flag` filter takes. */
export const flagOf = (view: Pick<RolloutView, "spec">): string =>
  `${view.spec.flag.namespace}/${view.spec.flag.name}`;

export const rolloutHref = (name: string): string => `/rollouts/${encodeURIComponent(name)}`;

/** The list's filters from its URL (`?phase=Progressing&flag=shop/checkout`); an unknown phase is none. */
export function filterOf(params: URLSearchParams): { phase?: RolloutPhase; flag?: string } {
  const phase = params.get("phase") ?? "";
  const flag = params.get("flag") ?? "";
  return {
    ...((ROLLOUT_PHASES as readonly string[]).includes(phase) ? { phase: phase as RolloutPhase } : {}),
    ...(flag === "" ? {} : { flag }),
  };
}
