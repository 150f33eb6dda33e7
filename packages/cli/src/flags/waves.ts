// The --wave syntax of `rollout create` and `promote` (pure: unit-tested), one option per wave, in
// order:
//   --wave local:60              cluster ids, comma-separated, then the bake in seconds
//   --wave eu-1,eu-2:300
//   --wave region=eu,tier=prod:300   labels every ClusterConnection of the wave carries
//   --wave staging               without ":SECONDS" the plan's default bake (60 s)
//   --wave prod:300:10%          the first 10 % of each cluster's matching workloads, then all
// Neither a cluster id nor a label holds a ':' or a '%', so a last part ending in '%' is the
// percent, and the last ':' before it starts the bake.
import { BAKE_SECONDS_MAX, isDns1123Label, isLabelKey, isLabelValue, type Wave } from "@svc/core";

export const WAVE_SYNTAX = "IDS[:SECONDS][:PERCENT%] or KEY=VALUE[,KEY=VALUE][:SECONDS][:PERCENT%]";

export type ParsedWave = { ok: true; wave: Wave } | { ok: false; message: string };

const refused = (text: string, why: string): ParsedWave => ({
  ok: false,
  message: `${JSON.stringify(text)} ${why}`,
});

function bakeOf(bake: string): number | string {
  if (bake === "") return "has nothing after ':' (the bake, in seconds)";
  if (!/^[0-9]{1,6}$/.test(bake) || Number(bake) > BAKE_SECONDS_MAX)
    return `has bake ${JSON.stringify(bake)}: it must be whole seconds from 0 to ${BAKE_SECONDS_MAX}`;
  return Number(bake);
}

function selectorOf(target: string): Record<string, string> | string {
  const pairs = target.split(",");
  if (pairs.some((pair) => !pair.includes("=")))
    return "names clusters both by id and by labels: a wave uses one way";
  const labels: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    const [key, value] = [pair.slice(0, at), pair.slice(at + 1)];
    if (!isLabelKey(key)) return `has ${JSON.stringify(key)}, which is not a label key`;
    if (!isLabelValue(value)) return `has ${JSON.stringify(value)}, which is not a label value`;
    if (Object.hasOwn(labels, key)) return `names label ${key} twice`;
    labels[key] = value;
  }
  return labels;
}

function idsOf(target: string): string[] | string {
  const ids = target.split(",");
  const bad = ids.find((id) => !isDns1123Label(id));
  if (bad !== undefined)
    return bad === ""
      ? "has an empty cluster id"
      : `has ${JSON.stringify(bad)}, which is not a cluster id (a DNS-1123 label)`;
  const twice = ids.find((id, index) => ids.indexOf(id) !== index);
  if (twice !== undefined) return `names cluster ${twice} twice`;
  return ids;
}

function percentOf(percent: string): number | string {
  if (!/^[0-9]{1,2}$/.test(percent) || Number(percent) < 1)
    return `has workload percent ${JSON.stringify(`${percent}%`)}: it must be a whole percent from 1 to 99`;
  return Number(percent);
}

/** One --wave value as a wave of the plan's spec, or why it is not one. */
export function parseWave(text: string): ParsedWave {
  let rest = text;
  let share: { workloadPercent?: number } = {};
  if (rest.endsWith("%")) {
    const colon = rest.lastIndexOf(":");
    if (colon < 0) return refused(text, "names no cluster before its percent");
    const percent = percentOf(rest.slice(colon + 1, -1));
    if (typeof percent === "string") return refused(text, percent);
    share = { workloadPercent: percent };
    rest = rest.slice(0, colon);
  }
  const colon = rest.lastIndexOf(":");
  const target = colon < 0 ? rest : rest.slice(0, colon);
  let bakeSeconds: number | undefined;
  if (colon >= 0) {
    const bake = bakeOf(rest.slice(colon + 1));
    if (typeof bake === "string") return refused(text, bake);
    bakeSeconds = bake;
  }
  if (target === "") return refused(text, "names no cluster");
  const bake = { ...(bakeSeconds === undefined ? {} : { bakeSeconds }), ...share };
  if (target.includes("=")) {
    const matchLabels = selectorOf(target);
    if (typeof matchLabels === "string") return refused(text, matchLabels);
    return { ok: true, wave: { clusterSelector: { matchLabels }, ...bake } };
  }
  const clusters = idsOf(target);
  if (typeof clusters === "string") return refused(text, clusters);
  return { ok: true, wave: { clusters, ...bake } };
}

/** Every --wave, in order; each refused one is named. */
export function parseWaves(texts: readonly string[]): { waves: Wave[]; errors: string[] } {
  const waves: Wave[] = [];
  const errors: string[] = [];
  for (const text of texts) {
    const parsed = parseWave(text);
    if (parsed.ok) waves.push(parsed.wave);
    else errors.push(parsed.message);
  }
  return { waves, errors };
}

/** A wave as the --wave syntax writes it (the timeline and the help show waves this way). */
export function waveText(wave: Wave): string {
  const labels = Object.entries(wave.clusterSelector?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  const target = wave.clusters?.join(",") ?? labels.join(",");
  const bake = wave.bakeSeconds === undefined ? "" : `:${wave.bakeSeconds}`;
  const percent = wave.workloadPercent === undefined ? "" : `:${wave.workloadPercent}%`;
  return `${target}${bake}${percent}`;
}
