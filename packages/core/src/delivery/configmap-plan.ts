/**
 * The ConfigMaps that configMap flags write: per ConfigMap, the keys and values, and the flags
 * that own it. One key has one writer: the first enabled flag by name (the REST API refuses a
 * second writer with configMapConflict; kubectl can still create one, which then reports a
 * conflict instead of fighting over the value). A targeted flag's value is evaluated for the
 * ConfigMap, not per workload: every workload that mounts it reads the same file
 * (docs/delivery.md, "Targeted values").
 */
import { isEnabled } from "../flags/values.ts";
import {
  configMapIdentity,
  deliveredValue,
  flagCompiler,
  type DeliveredValue,
  type DeliveryCluster,
  type FlagCompiler,
} from "./delivered-value.ts";
import { isBeingDeleted, undeliverableReason, type FeatureFlagResource } from "../flags/flag-resource.ts";
import { compareStrings } from "../kubernetes/workload.ts";

export interface ConfigMapPlan {
  namespace: string;
  configMapName: string;
  /** key → value of the enabled flags that write it. */
  data: Record<string, string>;
  /** Every flag that writes into it, enabled or not (its ownerReferences), by name. */
  owners: { name: string; uid: string | undefined }[];
}

/** Flags that take part in ConfigMap delivery: configMap kind, deliverable, not being deleted. */
function writesConfigMap(flag: FeatureFlagResource): boolean {
  return (
    flag.spec.delivery.configMap !== undefined &&
    !isBeingDeleted(flag) &&
    undeliverableReason(flag.spec) === undefined
  );
}

/** One ConfigMap key of one namespace ('/' appears in none of the three names). */
const slot = (namespace: string, configMapName: string, key: string) =>
  `${namespace}/${configMapName}/${key}`;

/** Who writes each ConfigMap key of the flags' namespaces: the first enabled flag by name. */
export type ConfigMapKeyWriters = ReadonlyMap<string, FeatureFlagResource>;

export function configMapKeyWriters(flags: readonly FeatureFlagResource[]): ConfigMapKeyWriters {
  const writers = new Map<string, FeatureFlagResource>();
  for (const flag of flags) {
    const target = flag.spec.delivery.configMap;
    if (target === undefined || !isEnabled(flag.spec) || !writesConfigMap(flag)) continue;
    const at = slot(flag.metadata.namespace, target.configMapName, target.key);
    const current = writers.get(at);
    if (current === undefined || compareStrings(flag.metadata.name, current.metadata.name) < 0) {
      writers.set(at, flag);
    }
  }
  return writers;
}

/** Why an enabled configMap flag's key is written by another flag, or undefined. */
export function configMapKeyTaken(
  flag: FeatureFlagResource,
  writers: ConfigMapKeyWriters,
): string | undefined {
  const target = flag.spec.delivery.configMap;
  if (target === undefined || !isEnabled(flag.spec)) return undefined;
  const writer = writers.get(slot(flag.metadata.namespace, target.configMapName, target.key));
  if (writer === undefined || writer.metadata.name === flag.metadata.name) return undefined;
  return `flag ${writer.metadata.name} already writes key ${target.key} of ConfigMap ${target.configMapName}`;
}

/** The value a configMap flag writes into its key in `cluster`. */
export function configMapValue(
  flag: FeatureFlagResource,
  compile: FlagCompiler,
  cluster: DeliveryCluster,
): DeliveredValue {
  const target = flag.spec.delivery.configMap;
  return deliveredValue(
    flag,
    compile,
    configMapIdentity(cluster, flag.metadata.namespace, target?.configMapName ?? ""),
  );
}

/** Every ConfigMap the flags write in `cluster`, by namespace and name. A ConfigMap no flag writes has no plan. */
export function planConfigMaps(
  flags: readonly FeatureFlagResource[],
  cluster: DeliveryCluster,
): ConfigMapPlan[] {
  const writers = configMapKeyWriters(flags);
  const compile = flagCompiler();
  // A Map, not an object, collects the data: "__proto__" is a valid ConfigMap key.
  type Collecting = Omit<ConfigMapPlan, "data"> & { data: Map<string, string> };
  const plans = new Map<string, Collecting>();
  const writing = flags
    .filter(writesConfigMap)
    .sort((a, b) => compareStrings(a.metadata.name, b.metadata.name));
  for (const flag of writing) {
    const target = flag.spec.delivery.configMap;
    if (target === undefined) continue;
    const { namespace } = flag.metadata;
    const id = JSON.stringify([namespace, target.configMapName]);
    let plan = plans.get(id);
    if (plan === undefined) {
      plan = { namespace, configMapName: target.configMapName, data: new Map(), owners: [] };
      plans.set(id, plan);
    }
    plan.owners.push({ name: flag.metadata.name, uid: flag.metadata.uid });
    if (writers.get(slot(namespace, target.configMapName, target.key)) === flag) {
      plan.data.set(target.key, configMapValue(flag, compile, cluster).value);
    }
  }
  return [...plans.values()]
    .map((plan) => ({ ...plan, data: Object.fromEntries(plan.data) }))
    .sort(
      (a, b) => compareStrings(a.namespace, b.namespace) || compareStrings(a.configMapName, b.configMapName),
    );
}
