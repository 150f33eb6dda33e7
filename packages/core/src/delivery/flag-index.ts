/**
 * The FeatureFlags of a namespace, indexed once so that planning each of its workloads looks
 * at the flags that can match it rather than at every flag: the operator's resync and the
 * preview plan thousands of workloads against the same flags.
 */
import { configMapKeyWriters, type ConfigMapKeyWriters } from "./configmap-plan.ts";
import { flagCompiler, type FlagCompiler } from "./delivered-value.ts";
import { flagMatchLabels, isBeingDeleted, type FeatureFlagResource } from "../flags/flag-resource.ts";
import { flagMatchesWorkload, type MatchedBy } from "./matching.ts";
import { compareStrings, type Workload } from "../kubernetes/workload.ts";

export interface FlagIndex {
  readonly flags: readonly FeatureFlagResource[];
  /** Each flag (being deleted excepted) once, under one label of its selector: `key=value`. */
  readonly bySelectorLabel: ReadonlyMap<string, readonly FeatureFlagResource[]>;
  readonly configMapKeyWriters: ConfigMapKeyWriters;
  /** Each targeted flag's rule, compiled once for every workload planned with this index. */
  readonly compile: FlagCompiler;
}

/** Every FeatureFlag of a namespace, as a list or already indexed. */
export type NamespaceFlags = readonly FeatureFlagResource[] | FlagIndex;

/** A label key holds no '=', so `key=value` names one label. */
const labelSlot = (key: string, value: string) => `${key}=${value}`;

export function indexFlags(flags: NamespaceFlags): FlagIndex {
  if (!Array.isArray(flags)) return flags as FlagIndex;
  const all = flags as readonly FeatureFlagResource[];
  const bySelectorLabel = new Map<string, FeatureFlagResource[]>();
  for (const flag of all) {
    if (isBeingDeleted(flag)) continue;
    // A workload matching the flag carries every selector label, so any one of them finds it.
    const first = Object.entries(flagMatchLabels(flag.spec))[0];
    if (first === undefined) continue;
    const slot = labelSlot(...first);
    const bucket = bySelectorLabel.get(slot);
    if (bucket === undefined) bySelectorLabel.set(slot, [flag]);
    else bucket.push(flag);
  }
  return {
    flags: all,
    bySelectorLabel,
    configMapKeyWriters: configMapKeyWriters(all),
    compile: flagCompiler(),
  };
}

export interface FlagMatch {
  flag: FeatureFlagResource;
  matchedBy: MatchedBy;
}

/** The flags (being deleted excepted) that match a workload, by name. */
export function matchingFlags(index: FlagIndex, workload: Workload): FlagMatch[] {
  const candidates = new Set<FeatureFlagResource>();
  const labelSets = [workload.object.metadata?.labels, workload.object.spec?.template.metadata?.labels];
  for (const labels of labelSets) {
    for (const [key, value] of Object.entries(labels ?? {})) {
      for (const flag of index.bySelectorLabel.get(labelSlot(key, value)) ?? []) candidates.add(flag);
    }
  }
  return [...candidates]
    .flatMap((flag) => {
      const matchedBy = flagMatchesWorkload(flag, workload);
      return matchedBy === undefined ? [] : [{ flag, matchedBy }];
    })
    .sort((a, b) => compareStrings(a.flag.metadata.name, b.flag.metadata.name));
}

const planningKeys = new WeakMap<FeatureFlagResource, string>();

/**
 * What of a flag planning reads, as one string: the flag itself (uid), its spec (by generation,
 * which the API server bumps on each spec change), its annotations (a wave's canary) and whether
 * it is being deleted. A status write, the operator's own after each workload it delivers,
 * leaves the key as it was, so plans made before it still hold. A flag without a generation (not
 * read from an API server) is keyed by its whole spec.
 */
export function flagPlanningKey(flag: FeatureFlagResource): string {
  let key = planningKeys.get(flag);
  if (key === undefined) {
    const { uid, name, generation, annotations, deletionTimestamp } = flag.metadata;
    key = JSON.stringify([uid, name, generation ?? flag.spec, annotations, deletionTimestamp]);
    planningKeys.set(flag, key);
  }
  return key;
}
