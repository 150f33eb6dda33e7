// The first step of a wave with `workloadPercent` (docs/safe-changes.md "Part of the workloads
// first"): the flag already holds the change, and an annotation names the canary workloads and
// the changed fields as they were; every other workload is delivered the flag as it was. The
// operator's envVar delivery and the sidecar apply this one rule, so both hold back the same
// workloads. Imports nothing at run time but the label rule: the sidecar loads it.
import { canonicalJson } from "../schema/canonical-json.ts";
import type { FeatureFlagSpec } from "../flags/flag.ts";
import type { FeatureFlagResource } from "../flags/flag-resource.ts";
import type { CanaryWorkload, RolloutChangeField } from "./flag-rollout.ts";
import { CANARY_WORKLOADS_MAX } from "./phases.ts";
import { selectorMatches } from "../kubernetes/label-selector.ts";
import { compareStrings, workloadName, type Workload } from "../kubernetes/workload.ts";

/** The FeatureFlag annotation of a wave's canary step; absent once the wave reaches every workload. */
export const CANARY_ANNOTATION = "svc.io/rollout-canary";

/** Fields written over a flag's spec, and fields removed from it. */
export interface SpecEdit {
  set: Partial<FeatureFlagSpec>;
  remove: readonly RolloutChangeField[];
}

export interface FlagCanary {
  /** The FlagRollout whose step this is. */
  plan: string;
  workloads: CanaryWorkload[];
  /** What every other workload is delivered: the changed fields as they were before the plan. */
  held: SpecEdit;
}

/** A spec with fields written over it. */
export function writeFields<S extends Partial<FeatureFlagSpec>>(spec: S, fields: SpecEdit): S {
  const removed = new Set<string>(fields.remove);
  return Object.fromEntries(
    Object.entries({ ...spec, ...fields.set }).filter(([field]) => !removed.has(field)),
  ) as S;
}

/** The annotation's text (canonical JSON, so that holding it compares by content). */
export function canaryAnnotationValue(canary: FlagCanary): string {
  return canonicalJson(canary);
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isStringMap = (value: unknown): value is Record<string, string> =>
  isRecord(value) && Object.values(value).every((v) => typeof v === "string");

/**
 * The canary a flag's annotations describe. Only the operator writes it; one that is not of
 * this shape (edited by hand) is ignored, and every workload gets the flag as it is.
 */
export function readCanary(
  annotations: Readonly<Record<string, string>> | undefined,
): FlagCanary | undefined {
  const text = annotations?.[CANARY_ANNOTATION];
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || typeof value["plan"] !== "string" || !Array.isArray(value["workloads"]))
    return undefined;
  const held = value["held"];
  if (!isRecord(held) || !isRecord(held["set"]) || !Array.isArray(held["remove"])) return undefined;
  const workloads = value["workloads"] as unknown[];
  if (
    !workloads.every(
      (w) =>
        isRecord(w) &&
        typeof w["kind"] === "string" &&
        typeof w["name"] === "string" &&
        isStringMap(w["matchLabels"]),
    ) ||
    !held["remove"].every((field) => typeof field === "string")
  )
    return undefined;
  return value as unknown as FlagCanary;
}

/** Whether a workload (by kind and name) is one of the canary's. */
export function isCanaryWorkload(canary: FlagCanary, kind: string, name: string): boolean {
  return canary.workloads.some((w) => w.kind === kind && w.name === name);
}

/** Whether a pod (by its labels) belongs to one of the canary's workloads. */
export function isCanaryPod(canary: FlagCanary, podLabels: Readonly<Record<string, string>>): boolean {
  return canary.workloads.some((w) => selectorMatches(w.matchLabels, podLabels));
}

/** The spec a workload outside the canary is delivered. */
export function heldSpec<S extends Partial<FeatureFlagSpec>>(spec: S, canary: FlagCanary): S {
  return writeFields(spec, canary.held);
}

/** Each cached flag's canary and held copy, worked out once (planning asks for every workload). */
const heldFlags = new WeakMap<
  FeatureFlagResource,
  { canary: FlagCanary; held: FeatureFlagResource } | null
>();

/** The flag as a workload is delivered it: as it was before the plan, outside a canary step's workloads. */
export function flagForWorkload(flag: FeatureFlagResource, workload: Workload): FeatureFlagResource {
  let entry = heldFlags.get(flag);
  if (entry === undefined) {
    const canary = readCanary(flag.metadata.annotations);
    entry = canary === undefined ? null : { canary, held: { ...flag, spec: heldSpec(flag.spec, canary) } };
    heldFlags.set(flag, entry);
  }
  if (entry === null || isCanaryWorkload(entry.canary, workload.kind, workloadName(workload))) return flag;
  return entry.held;
}

/**
 * The canary workloads of a cluster: the first `percent` of its matching workloads in kind and
 * name order, at least one, at most CANARY_WORKLOADS_MAX. Undefined when that is every workload (the step would change
 * nothing the full step does not).
 */
export function chooseCanary<T extends { kind: string; name: string }>(
  workloads: readonly T[],
  percent: number,
): T[] | undefined {
  const count = Math.min(CANARY_WORKLOADS_MAX, Math.max(1, Math.ceil((workloads.length * percent) / 100)));
  if (count >= workloads.length) return undefined;
  const key = (w: T) => `${w.kind}/${w.name}`;
  return [...workloads].sort((a, b) => compareStrings(key(a), key(b))).slice(0, count);
}
