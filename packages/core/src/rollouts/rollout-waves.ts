// The parts of a plan's decisions that are not about time: which clusters each wave holds, and
// what a cluster's flag must hold for a change (or its rollback) to count as written.
import { canonicalJson } from "../schema/canonical-json.ts";
import type { ClusterConnectionResource } from "../clusters/cluster-registration.ts";
import { validateFlagSpec, type FeatureFlagSpec } from "../flags/flag.ts";
import { writeFields, type FlagCanary, type SpecEdit } from "./rollout-canary.ts";
import { isProtectedCluster } from "./protected-writes.ts";
import { fieldPath, type FieldError } from "../schema/validation.ts";
import {
  ROLLOUT_CHANGE_FIELDS,
  type FlagRolloutSpec,
  type RolloutChange,
  type RolloutCluster,
  type Wave,
} from "./flag-rollout.ts";

/** A registered cluster as a plan sees it. */
export interface PlanCluster {
  labels: Readonly<Record<string, string>>;
  /** Plans that touch it wait for a second user's approval. */
  protected: boolean;
}

/** The registered clusters as plans see them, by id. */
export function planClusters(connections: readonly ClusterConnectionResource[]): Map<string, PlanCluster> {
  return new Map(
    connections.map((connection) => {
      const labels = connection.spec.labels ?? {};
      return [connection.metadata.name, { labels, protected: isProtectedCluster(labels) }];
    }),
  );
}

export type ResolvedWaves = { ok: true; waves: string[][] } | { ok: false; field: string; message: string };

/**
 * The cluster ids of each wave, against the registered clusters: a wave's ids must be
 * registered, its selector must match at least one cluster, and no cluster may be in two waves.
 */
export function resolveWaves(
  waves: FlagRolloutSpec["waves"],
  clusters: ReadonlyMap<string, PlanCluster>,
): ResolvedWaves {
  const owner = new Map<string, number>();
  const resolved: string[][] = [];
  for (const [index, wave] of waves.entries()) {
    const field = `waves.${index}`;
    let ids: string[];
    if (wave.clusters !== undefined) {
      const unknown = wave.clusters.find((id) => !clusters.has(id));
      if (unknown !== undefined)
        return { ok: false, field: `${field}.clusters`, message: `no cluster ${unknown} is registered` };
      ids = [...wave.clusters];
    } else {
      const labels = Object.entries(wave.clusterSelector?.matchLabels ?? {});
      ids = [...clusters]
        .filter(([, cluster]) => labels.every(([key, value]) => cluster.labels[key] === value))
        .map(([id]) => id)
        .sort();
      if (ids.length === 0)
        return { ok: false, field: `${field}.clusterSelector`, message: "matches no registered cluster" };
    }
    for (const id of ids) {
      const earlier = owner.get(id);
      if (earlier !== undefined)
        return { ok: false, field, message: `holds cluster ${id}, which waves.${earlier} holds too` };
      owner.set(id, index);
    }
    resolved.push(ids);
  }
  return { ok: true, waves: resolved };
}

/**
 * What a cluster's flag must hold: fields set to these values, fields left unset, and the canary
 * annotation of a wave's first step (absent: the flag must not carry one).
 */
export interface FieldTarget extends SpecEdit {
  canary?: FlagCanary | undefined;
}

export function changeTarget(change: RolloutChange, canary?: FlagCanary): FieldTarget {
  return { set: { ...change }, remove: [], ...(canary === undefined ? {} : { canary }) };
}

/** The rollback of a cluster: its fields as they were before the plan. */
export function previousTarget(cluster: RolloutCluster): FieldTarget {
  return { set: { ...cluster.previous }, remove: [...(cluster.previousAbsent ?? [])] };
}

/** The changed fields of a flag as they are now: what rollback restores. */
export function capturePrevious(
  spec: FeatureFlagSpec,
  change: RolloutChange,
): Pick<RolloutCluster, "previous" | "previousAbsent"> {
  const fields = ROLLOUT_CHANGE_FIELDS.filter((field) => change[field] !== undefined);
  const previous: Partial<FeatureFlagSpec> = {};
  for (const field of fields)
    if (spec[field] !== undefined) Object.assign(previous, { [field]: spec[field] });
  return { previous, previousAbsent: fields.filter((field) => spec[field] === undefined) };
}

/** Whether a flag holds a target (values compared as canonical JSON). */
export function holdsTarget(
  flag: { spec: FeatureFlagSpec; canary?: FlagCanary | undefined },
  target: FieldTarget,
): boolean {
  const { spec } = flag;
  return (
    Object.entries(target.set).every(
      ([field, value]) => canonicalJson(spec[field as keyof FeatureFlagSpec]) === canonicalJson(value),
    ) &&
    target.remove.every((field) => spec[field] === undefined) &&
    canonicalJson(flag.canary ?? null) === canonicalJson(target.canary ?? null)
  );
}

/** A flag spec with a target written over it. */
export function applyTarget(spec: FeatureFlagSpec, target: FieldTarget): FeatureFlagSpec {
  return writeFields(spec, target);
}

/** What is wrong with a change for the flag it would change in one cluster (a value of its type, variants). */
export function changeErrors(spec: FeatureFlagSpec, change: RolloutChange, prefix: string): FieldError[] {
  const checked = validateFlagSpec(applyTarget(spec, changeTarget(change)));
  // The flag was valid before: every problem comes from the change, named under its prefix.
  return checked.ok
    ? []
    : checked.errors.map((e) => ({ field: fieldPath(prefix, e.field), message: e.message }));
}

/**
 * Why a wave cannot change part of a cluster's workloads first: a configMap flag's key is one
 * value for every workload that mounts its ConfigMap.
 */
export function workloadPercentErrors(
  spec: FeatureFlagSpec,
  wave: Pick<Wave, "workloadPercent"> | undefined,
  index: number,
): FieldError[] {
  if (wave?.workloadPercent === undefined || spec.delivery.configMap === undefined) return [];
  return [
    {
      field: `waves.${index}.workloadPercent`,
      message:
        "the flag is delivered by configMap, whose one key serves every workload that mounts it; only an envVar or sidecar flag can change part of its workloads first",
    },
  ];
}
