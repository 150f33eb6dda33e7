// What the plan verbs print (pure: unit-tested): a row per plan, a plan's timeline (its waves,
// their clusters, each one's phase and message) and, for watch, a line per change between two
// reads. json and yaml print the API's own view of a plan, unchanged.
import {
  FINISHED_ROLLOUT_PHASES,
  type Approval,
  type FlagRolloutSpec,
  type RolloutCluster,
  type RolloutPhase,
  type RolloutView,
  type RolloutWave,
  type Wave,
  shownRolloutPhase,
} from "@svc/core";
import type { Output } from "./options.ts";
import { renderData, shorten, table } from "./render.ts";

/** A plan as GET /api/v1/rollouts/{name} answers it; `status` is {} until the operator writes one. */
export type { RolloutView };

/** A plan the operator has not picked up yet is Pending, as the API shows and filters it. */
export const shownPhase = (view: RolloutView): RolloutPhase => shownRolloutPhase(view.status);
export const isFinished = (view: RolloutView) => FINISHED_ROLLOUT_PHASES.includes(shownPhase(view));

/** The phase, and what the plan was asked that the operator has not acted on yet. */
export function phaseText(view: RolloutView): string {
  const phase = shownPhase(view);
  if (isFinished(view)) return phase;
  if (view.spec.abort === true && phase !== "RollingBack") return `${phase} (abort asked)`;
  if (view.spec.paused === true && phase !== "Paused") return `${phase} (pause asked)`;
  if (view.spec.paused !== true && phase === "Paused") return `${phase} (resume asked)`;
  return phase;
}

/** `defaultValue="true", enabled=false`: the fields the plan sets, each as JSON. */
export const changeText = (change: FlagRolloutSpec["change"]) =>
  Object.entries(change)
    .map(([field, value]) => `${field}=${JSON.stringify(value)}`)
    .join(", ");

/** A wave's clusters as the spec names them: `local,eu-1` or `region=eu`. */
export function waveTarget(wave: Wave): string {
  if (wave.clusters !== undefined) return wave.clusters.join(",");
  const labels = Object.entries(wave.clusterSelector?.matchLabels ?? {});
  return `clusters with ${labels.map(([k, v]) => `${k}=${v}`).join(",")}`;
}

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, " ");
const withMessage = (text: string, message: string | undefined) =>
  message === undefined || message === "" ? text : `${text}: ${oneLine(message)}`;

export const PLAN_HEADER = ["NAME", "FLAG", "CHANGE", "PHASE", "WAVES", "CURRENT", "AUTHOR", "CREATED"];

export function planRow(view: RolloutView): string[] {
  return [
    view.name,
    `${view.spec.flag.namespace}/${view.spec.flag.name}`,
    shorten(changeText(view.spec.change)),
    phaseText(view),
    String(view.spec.waves.length),
    view.status.currentWave === undefined ? "-" : String(view.status.currentWave),
    view.author === "" ? "-" : view.author,
    view.createdAt,
  ];
}

/** list, create, promote and the actions: a row per plan, or the API's views. */
export function renderRollouts(views: RolloutView | readonly RolloutView[], output: Output): string {
  if (output !== "table") return renderData(views, output);
  const list = Array.isArray(views) ? views : [views as RolloutView];
  if (list.length === 0) return "no plans\n";
  return table([PLAN_HEADER, ...list.map(planRow)]);
}

export const approvalText = (approval: Approval) =>
  withMessage(`${approval.decision} by ${approval.by} at ${approval.at}`, approval.comment);

function waveLine(index: number, wave: Wave, state: RolloutWave | undefined): string {
  const bake = `bake ${wave.bakeSeconds ?? 60}s`;
  const times = [
    state?.startedAt === undefined ? "" : `started ${state.startedAt}`,
    state?.bakeUntil === undefined || state.finishedAt !== undefined ? "" : `baking until ${state.bakeUntil}`,
    state?.finishedAt === undefined ? "" : `finished ${state.finishedAt}`,
  ].filter((t) => t !== "");
  const when = times.length === 0 ? "" : ` (${times.join(", ")})`;
  const share =
    wave.workloadPercent === undefined
      ? ""
      : `, ${wave.workloadPercent}% of workloads first${state?.stage === undefined ? "" : ` (${state.stage === "Canary" ? "canary" : "all"} step)`}`;
  const text = `wave ${index}  ${state?.phase ?? "Pending"}  ${waveTarget(wave)}, ${bake}${share}${when}`;
  return withMessage(text, state?.message);
}

function clusterLines(clusters: readonly RolloutCluster[]): string[] {
  const width = Math.max(0, ...clusters.map((c) => c.id.length));
  return clusters.flatMap((cluster) => {
    const delivered = cluster.deliveredAt === undefined ? "" : `  delivered ${cluster.deliveredAt}`;
    const line = withMessage(
      `    ${cluster.id.padEnd(width)}  ${cluster.phase}${delivered}`,
      cluster.message,
    );
    const workloads = cluster.workloads ?? [];
    const unwell = workloads.filter((w) => w.health === "Progressing" || w.health === "Unhealthy");
    const held = workloads.filter((w) => w.health === "Waiting").length;
    return [
      line,
      ...(cluster.canary === undefined
        ? []
        : [`      canary: ${cluster.canary.map((w) => `${w.kind} ${w.name}`).join(", ")}`]),
      ...unwell.map((w) => withMessage(`      ${w.kind} ${w.name}  ${w.health}`, w.message)),
      ...(held === 0 ? [] : [`      ${held} more held back until the canary passed`]),
    ];
  });
}

/** get: the plan, then its waves, each with its clusters and their unhealthy workloads. */
export function renderTimeline(view: RolloutView): string {
  const { spec, status } = view;
  const current = status.currentWave === undefined || isFinished(view) ? "" : `, wave ${status.currentWave}`;
  const rows: [string, string][] = [
    ["plan:", view.name],
    ["flag:", `${spec.flag.namespace}/${spec.flag.name}`],
    ["change:", changeText(spec.change)],
    [
      "created:",
      `${view.createdAt} by ${view.author === "" ? "(unknown: not through the API)" : view.author}`,
    ],
  ];
  if (spec.startAt !== undefined) rows.push(["starts:", spec.startAt]);
  rows.push(["phase:", `${phaseText(view)}${current}`]);
  if (status.protectedClusters !== undefined && status.protectedClusters.length > 0)
    rows.push(["protected:", `${status.protectedClusters.join(", ")} (a second user approves)`]);
  if (status.approval !== undefined) rows.push(["approval:", approvalText(status.approval)]);
  if (status.startedAt !== undefined) rows.push(["started:", status.startedAt]);
  if (status.finishedAt !== undefined) rows.push(["finished:", status.finishedAt]);
  if (status.message !== undefined && status.message !== "") rows.push(["message:", oneLine(status.message)]);
  const waves = spec.waves.flatMap((wave, index) => {
    const state = status.waves?.[index];
    return [`  ${waveLine(index, wave, state)}`, ...clusterLines(state?.clusters ?? [])];
  });
  return `${table(rows)}waves:\n${waves.map((line) => `${line}\n`).join("")}`;
}

const sameText = (a: string | undefined, b: string | undefined) => (a ?? "") === (b ?? "");

function clusterChanges(at: string, before: RolloutCluster | undefined, after: RolloutCluster): string[] {
  const lines: string[] = [];
  if (before?.phase !== after.phase || !sameText(before.message, after.message))
    lines.push(withMessage(`${at} cluster ${after.id} ${after.phase}`, after.message));
  for (const workload of after.workloads ?? []) {
    const earlier = before?.workloads?.find((w) => w.kind === workload.kind && w.name === workload.name);
    const health = earlier?.health ?? "Healthy";
    if (health !== workload.health || (earlier !== undefined && !sameText(earlier.message, workload.message)))
      lines.push(
        withMessage(
          `${at} cluster ${after.id} ${workload.kind} ${workload.name} ${workload.health}`,
          workload.message,
        ),
      );
  }
  return lines;
}

/**
 * watch: what changed from one read of a plan to the next, a line per change (without `before`,
 * the state as first read): the plan's phase or message, its approval, each wave's phase, each
 * cluster's phase or message, a workload's health.
 */
export function watchLines(before: RolloutView | undefined, after: RolloutView): string[] {
  const lines: string[] = [];
  const [was, is] = [before === undefined ? undefined : phaseText(before), phaseText(after)];
  if (was !== is) lines.push(withMessage(`plan ${after.name} ${is}`, after.status.message));
  else if (!sameText(before?.status.message, after.status.message) && after.status.message !== undefined)
    lines.push(withMessage(`plan ${after.name}`, after.status.message));
  const approval = after.status.approval;
  if (approval !== undefined && before?.status.approval === undefined)
    lines.push(`plan ${after.name} ${approvalText(approval)}`);
  (after.status.waves ?? []).forEach((wave, index) => {
    const earlier = before?.status.waves?.[index];
    if (earlier?.phase !== wave.phase || !sameText(earlier.message, wave.message))
      lines.push(withMessage(`wave ${index} ${wave.phase}`, wave.message));
    for (const cluster of wave.clusters)
      lines.push(
        ...clusterChanges(
          `wave ${index}`,
          earlier?.clusters.find((c) => c.id === cluster.id),
          cluster,
        ),
      );
  });
  return lines;
}
