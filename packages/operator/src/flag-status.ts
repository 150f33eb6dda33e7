// The status the operator writes on a FeatureFlag, from the plans of its namespace's
// workloads (targets and phase are core's flagTargets and flagPhase), with a Ready condition
// whose transition time holds while its status does; and whether it differs from the stored one.
import {
  API_GROUP_VERSION,
  deliveryKind,
  FEATURE_FLAG,
  flagPhase,
  flagTargets,
  undeliverableReason,
  type Condition,
  type FeatureFlagResource,
  type FeatureFlagStatus,
  type FlagPhase,
  type WorkloadPlan,
} from "@svc/core";
import type { ApplyConfiguration } from "@svc/kube";
import { canonicalJson } from "./canonical-json.ts";

/** The finalizer with which the operator withdraws a deleted flag from its workloads first. */
export const DELIVERY_FINALIZER = "svc.io/delivery";

const READY_MESSAGES: Record<FlagPhase, string> = {
  Delivered: "every target workload carries the flag as it should",
  NoTargets: "no workload matches the flag's selector",
  Pending: "some target workloads do not carry the flag yet",
  Degraded: "some target workloads cannot get the flag: see targets",
};

/** metav1.Time: RFC 3339 in whole seconds. */
function metaTime(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, "Z");
}

export function desiredFlagStatus(
  flag: FeatureFlagResource,
  plans: readonly WorkloadPlan[],
  now: Date,
): FeatureFlagStatus {
  const targets = flagTargets(flag, plans);
  const phase = flagPhase(targets);
  const ready = phase === "Delivered" || phase === "NoTargets" ? "True" : "False";
  const previous = flag.status?.conditions?.find((c) => c.type === "Ready");
  const generation = flag.metadata.generation;
  const condition: Condition = {
    type: "Ready",
    status: ready,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    lastTransitionTime: previous?.status === ready ? previous.lastTransitionTime : metaTime(now),
    reason: phase,
    message: READY_MESSAGES[phase],
  };
  const invalid = undeliverableReason(flag.spec);
  return {
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    phase,
    delivery: deliveryKind(flag.spec.delivery),
    targets,
    ...(invalid === undefined ? {} : { message: invalid }),
    conditions: [condition],
  };
}

export function sameStatus(stored: FeatureFlagStatus | undefined, desired: FeatureFlagStatus): boolean {
  return stored !== undefined && canonicalJson(stored) === canonicalJson(desired);
}

/**
 * The Kubernetes Event recorded on a flag whose phase changes (`kubectl describe featureflag`
 * shows it), or undefined when the phase holds: events follow status writes, never resyncs.
 */
export function phaseChangeEvent(
  flag: FeatureFlagResource,
  status: FeatureFlagStatus,
  now: Date,
): ApplyConfiguration | undefined {
  const phase = status.phase;
  if (phase === undefined || phase === flag.status?.phase) return undefined;
  const { name, namespace, uid } = flag.metadata;
  const time = metaTime(now);
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: `${name}.${now.getTime().toString(16)}`, namespace },
    involvedObject: {
      apiVersion: flag.apiVersion ?? API_GROUP_VERSION,
      kind: FEATURE_FLAG.kind,
      name,
      namespace,
      uid,
    },
    type: phase === "Degraded" ? "Warning" : "Normal",
    reason: phase,
    message: status.message ?? READY_MESSAGES[phase],
    source: { component: "svc-operator" },
    firstTimestamp: time,
    lastTimestamp: time,
    count: 1,
  };
}
