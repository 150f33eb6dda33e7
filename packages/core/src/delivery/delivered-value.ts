/**
 * The value an envVar or configMap flag delivers. Those deliveries have no request, so a
 * targeted flag is evaluated once per workload (or per ConfigMap) by flagd's own engine, with
 * the workload's identity as its context (docs/delivery.md, "Targeted values").
 */
import {
  compileFlag,
  deliveredValueText,
  evaluateFlag,
  isTargeted,
  workloadContext,
  type CompiledFlag,
  type WorkloadIdentity,
} from "../targeting/flagd.ts";
import { evaluationKey } from "../flags/flag-keys.ts";
import type { FeatureFlagResource } from "../flags/flag-resource.ts";
import { workloadName, workloadNamespace, type Workload } from "../kubernetes/workload.ts";

/** The cluster a plan is made for: its id and its ClusterConnection's spec.labels. */
export interface DeliveryCluster {
  id: string;
  labels: Readonly<Record<string, string>>;
}

/** A cluster's delivery identity; the local cluster without a ClusterConnection has no labels. */
export function deliveryCluster(cluster: {
  id: string;
  connection?: { spec: { labels?: Record<string, string> | undefined } } | undefined;
}): DeliveryCluster {
  return { id: cluster.id, labels: { ...(cluster.connection?.spec.labels ?? {}) } };
}

/** Compiles each flag at most once (planning many workloads reuses the compiled rule). */
export type FlagCompiler = (flag: FeatureFlagResource) => CompiledFlag;

export function flagCompiler(): FlagCompiler {
  const compiled = new Map<FeatureFlagResource, CompiledFlag>();
  return (flag) => {
    let done = compiled.get(flag);
    if (done === undefined) {
      // Not strict: the API validated the rule when it was written; one created with kubectl
      // is loaded as flagd loads a file by default, and a rule flagd-core cannot build
      // evaluates to PARSE_ERROR below.
      done = compileFlag(evaluationKey(flag), flag.spec, false);
      compiled.set(flag, done);
    }
    return done;
  };
}

/** What a flag delivers at one place: the value text, and why targeting fell back to the default. */
export interface DeliveredValue {
  value: string;
  /** Set when the evaluation failed and the defaultValue is delivered instead. */
  problem?: string;
}

export function deliveredValue(
  flag: FeatureFlagResource,
  compile: FlagCompiler,
  at: WorkloadIdentity,
): DeliveredValue {
  // An untargeted flag evaluates to its defaultValue (flagd's STATIC or DEFAULT): no engine call.
  if (!isTargeted(flag.spec)) return { value: flag.spec.defaultValue };
  const evaluation = evaluateFlag(evaluationKey(flag), compile(flag), workloadContext(at));
  const value = deliveredValueText(flag.spec, evaluation);
  if (evaluation.errorCode === undefined) return { value };
  const details = evaluation.errorDetails === undefined ? "" : `: ${evaluation.errorDetails}`;
  return { value, problem: `targeting failed (${evaluation.errorCode}${details}); defaultValue delivered` };
}

/** Where a workload is, for the evaluation context. */
export function workloadIdentity(cluster: DeliveryCluster, workload: Workload): WorkloadIdentity {
  return {
    cluster: cluster.id,
    clusterLabels: cluster.labels,
    namespace: workloadNamespace(workload),
    kind: workload.kind,
    name: workloadName(workload),
    labels: workload.object.metadata?.labels ?? {},
  };
}

/**
 * Where a ConfigMap is: one ConfigMap serves every workload that mounts it, so its value is
 * evaluated once, for the ConfigMap itself (kind ConfigMap, its name, no labels).
 */
export function configMapIdentity(
  cluster: DeliveryCluster,
  namespace: string,
  configMapName: string,
): WorkloadIdentity {
  return {
    cluster: cluster.id,
    clusterLabels: cluster.labels,
    namespace,
    kind: "ConfigMap",
    name: configMapName,
    labels: {},
  };
}
