/**
 * The "New rollout" form as typed, the body it sends (POST /api/v1/rollouts), and what the browser
 * can tell is wrong before sending: its own rules, then the API's schema of the body (compiled
 * ahead of time). Problems are keyed by the API's own field names ("flag.name",
 * "waves.1.bakeSeconds"), so a local problem and the API's 400 show in the same place.
 */
import {
  isDns1123Label,
  isLabelKey,
  isLabelValue,
  RolloutCreateBodyCheck,
  schemaRefusals,
  unexplainedRefusals,
} from "@svc/core/browser";
import { DEFAULT_BAKE_SECONDS } from "./timeline-model.ts";
import type { RolloutChange, RolloutCreateBody, WaveSpec } from "./types.ts";

/** The CRD's limits (core's BAKE_SECONDS_MAX, WAVES_MAX). */
export const BAKE_SECONDS_MAX = 86_400;
export const WAVES_MAX = 16;

/** The change fields only the JSON box sets. */
export const JSON_CHANGE_FIELDS = ["variants", "defaultVariant", "targeting", "evaluators"] as const;

export interface WaveForm {
  by: "clusters" | "selector";
  /** Cluster ids, when `by` is clusters. */
  clusters: readonly string[];
  /** "region=eu, tier=web", when `by` is selector. */
  selector: string;
  bakeSeconds: string;
  /** The share of each cluster's workloads changed first, 1–99; empty: all at once. */
  workloadPercent: string;
}

export interface RolloutForm {
  /** The plan's name; empty: the API picks `<flag>-<5 random characters>`. */
  name: string;
  namespace: string;
  flagName: string;
  /** Empty: the value stays as it is in each cluster. */
  defaultValue: string;
  enabled: "keep" | "on" | "off";
  /** A JSON object of variants, defaultVariant, targeting and evaluators; empty: none. */
  json: string;
  waves: readonly WaveForm[];
  /** A datetime-local value ("2026-12-01T09:00"), in the browser's zone; empty: at once. */
  startAt: string;
}

export const emptyWave = (bakeSeconds = DEFAULT_BAKE_SECONDS): WaveForm => ({
  by: "clusters",
  clusters: [],
  selector: "",
  bakeSeconds: String(bakeSeconds),
  workloadPercent: "",
});

export function emptyForm(namespace = "", flagName = ""): RolloutForm {
  return {
    name: "",
    namespace,
    flagName,
    defaultValue: "",
    enabled: "keep",
    json: "",
    waves: [emptyWave()],
    startAt: "",
  };
}

export type Problems = Record<string, string>;

/** "a=b, c=d" → {a: "b", c: "d"}, or the first problem. */
export function parseLabels(text: string): Record<string, string> | string {
  const labels: Record<string, string> = {};
  const pairs = text
    .split(",")
    .map((pair) => pair.trim())
    .filter((pair) => pair !== "");
  if (pairs.length === 0) return "must hold at least one label, as key=value";
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    const key = at < 0 ? pair : pair.slice(0, at).trim();
    const value = at < 0 ? undefined : pair.slice(at + 1).trim();
    if (value === undefined) return `${pair}: write it as key=value`;
    if (!isLabelKey(key)) return `${key}: is not a valid label key`;
    if (!isLabelValue(value)) return `${key}: ${value} is not a valid label value`;
    labels[key] = value;
  }
  return labels;
}

/** The JSON box's fields, or the problem with it. */
export function parseJsonFields(text: string): RolloutChange | string {
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return `not JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return "must be a JSON object";
  const unknown = Object.keys(parsed).filter(
    (key) => !(JSON_CHANGE_FIELDS as readonly string[]).includes(key),
  );
  if (unknown.length > 0) return `${unknown.join(", ")}: not one of ${JSON_CHANGE_FIELDS.join(", ")}`;
  return parsed;
}

/** A datetime-local value as RFC 3339 in UTC (seconds, no fraction), or undefined when not a time. */
export function startAtOf(local: string): string | undefined {
  const time = new Date(local).getTime();
  if (local.trim() === "" || Number.isNaN(time)) return undefined;
  return new Date(time).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function bakeOf(text: string): number | undefined {
  if (!/^\d+$/.test(text.trim())) return undefined;
  const seconds = Number(text.trim());
  return seconds <= BAKE_SECONDS_MAX ? seconds : undefined;
}

export function changeOf(form: RolloutForm): RolloutChange {
  const json = parseJsonFields(form.json);
  return {
    ...(form.defaultValue === "" ? {} : { defaultValue: form.defaultValue }),
    ...(form.enabled === "keep" ? {} : { enabled: form.enabled === "on" }),
    ...(typeof json === "string" ? {} : json),
  };
}

/** "10" → 10; empty or not a whole percent from 1 to 99 → undefined. */
function percentOf(text: string): number | undefined {
  if (!/^\d{1,2}$/.test(text.trim())) return undefined;
  const percent = Number(text.trim());
  return percent >= 1 ? percent : undefined;
}

export function waveOf(wave: WaveForm): WaveSpec {
  const bakeSeconds = bakeOf(wave.bakeSeconds);
  const workloadPercent = percentOf(wave.workloadPercent);
  const labels = parseLabels(wave.selector);
  return {
    ...(wave.by === "clusters"
      ? { clusters: [...wave.clusters] }
      : { clusterSelector: { matchLabels: typeof labels === "string" ? {} : labels } }),
    ...(bakeSeconds === undefined ? {} : { bakeSeconds }),
    ...(workloadPercent === undefined ? {} : { workloadPercent }),
  };
}

/** The body the form sends; meaningful once `formProblems` is empty. */
export function bodyOf(form: RolloutForm): RolloutCreateBody {
  const startAt = startAtOf(form.startAt);
  return {
    ...(form.name.trim() === "" ? {} : { name: form.name.trim() }),
    flag: { namespace: form.namespace.trim(), name: form.flagName.trim() },
    change: changeOf(form),
    waves: form.waves.map(waveOf),
    ...(startAt === undefined ? {} : { startAt }),
  };
}

/** What the browser can tell is wrong, by the API's field names. */
export function formProblems(form: RolloutForm): Problems {
  const problems: Problems = {};
  const label = (field: string, value: string) => {
    if (value.trim() === "") problems[field] = "is required";
    else if (!isDns1123Label(value.trim()))
      problems[field] = "must be a DNS-1123 label: lowercase letters, digits and '-'";
  };
  label("flag.namespace", form.namespace);
  label("flag.name", form.flagName);
  if (form.name.trim() !== "") label("name", form.name);
  const json = parseJsonFields(form.json);
  if (typeof json === "string") problems["change"] = json;
  else if (Object.keys(changeOf(form)).length === 0)
    problems["change"] = "set at least one of the value, enabled, or a field in the JSON box";
  if (form.waves.length === 0) problems["waves"] = "add at least one wave";
  if (form.waves.length > WAVES_MAX) problems["waves"] = `at most ${WAVES_MAX} waves`;
  const seen = new Map<string, number>();
  form.waves.forEach((wave, index) => {
    const at = `waves.${index}`;
    if (bakeOf(wave.bakeSeconds) === undefined)
      problems[`${at}.bakeSeconds`] = `must be whole seconds from 0 to ${BAKE_SECONDS_MAX}`;
    if (wave.workloadPercent.trim() !== "" && percentOf(wave.workloadPercent) === undefined)
      problems[`${at}.workloadPercent`] = "must be a whole percent from 1 to 99, or empty for all at once";
    if (wave.by === "selector") {
      const labels = parseLabels(wave.selector);
      if (typeof labels === "string") problems[`${at}.clusterSelector`] = labels;
      return;
    }
    if (wave.clusters.length === 0) problems[`${at}.clusters`] = "choose at least one cluster";
    for (const id of wave.clusters) {
      const earlier = seen.get(id);
      if (earlier !== undefined)
        problems[`${at}.clusters`] = `names cluster ${id}, which waves.${earlier} names too`;
      else seen.set(id, index);
    }
  });
  if (form.startAt.trim() !== "" && startAtOf(form.startAt) === undefined)
    problems["startAt"] = "is not a time";
  // What the API's schema refuses and no rule above explains ("" for the body as a whole).
  const refusals = schemaRefusals(RolloutCreateBodyCheck, bodyOf(form));
  for (const [field, reason] of unexplainedRefusals(refusals, Object.keys(problems)))
    problems[field] = reason;
  return problems;
}

/** The keys the form shows problems under, most specific first within each wave. */
export function problemKeys(form: Pick<RolloutForm, "waves">): string[] {
  const waves = form.waves.flatMap((_, i) => [
    `waves.${i}.bakeSeconds`,
    `waves.${i}.workloadPercent`,
    `waves.${i}.clusters`,
    `waves.${i}.clusterSelector`,
    `waves.${i}`,
  ]);
  return ["flag.namespace", "flag.name", "flag", "name", "change", ...waves, "waves", "startAt"];
}

/**
 * An API 400 message ("waves.1.clusters: no cluster x is registered; change.defaultValue: …")
 * split over the keys the form shows: each part goes to the longest key that is its field or a
 * parent of it; parts no key takes go to "" (shown above the buttons). A message that is not a
 * list of field problems goes to "" whole.
 */
export function placeApiError(message: string, keys: readonly string[]): Map<string, string> {
  const placed = new Map<string, string>();
  const add = (key: string, text: string) => {
    const before = placed.get(key);
    placed.set(key, before === undefined ? text : `${before}; ${text}`);
  };
  const parts = message.split("; ");
  const fields = parts.map((part) => /^([A-Za-z][\w.-]*): /.exec(part)?.[1]);
  if (fields.some((field) => field === undefined)) {
    placed.set("", message);
    return placed;
  }
  const byLength = [...keys].sort((a, b) => b.length - a.length);
  parts.forEach((part, index) => {
    const field = fields[index] ?? "";
    const key = byLength.find((k) => field === k || field.startsWith(`${k}.`));
    add(key ?? "", part);
  });
  return placed;
}
