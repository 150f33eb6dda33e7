// A wave's health gate for one workload (docs/safe-changes.md "Health gates"): the rollout the
// change caused, and its pods' restarts and crash states against what they were before it.
// Pure: the operator observes, this decides.
import type { WorkloadHealthState } from "./flag-rollout.ts";
import type { WorkloadKind } from "../kubernetes/workload.ts";

/** A container state that means the pod cannot run: the change broke it (or its image). */
const BROKEN_WAITING_REASONS = new Set([
  "CrashLoopBackOff",
  "CreateContainerConfigError",
  "CreateContainerError",
  "RunContainerError",
  "ErrImagePull",
  "ImagePullBackOff",
  "InvalidImageName",
]);

export interface ObservedPod {
  name: string;
  ready: boolean;
  /** Restarts summed over the pod's containers (init containers included). */
  restarts: number;
  /** The first waiting reason of a container that is not running, e.g. "CrashLoopBackOff". */
  waitingReason?: string | undefined;
}

export interface ObservedWorkload {
  kind: WorkloadKind;
  name: string;
  generation: number;
  observedGeneration: number;
  /** Desired replicas (a DaemonSet's: the nodes it is scheduled on). */
  desired: number;
  updated: number;
  ready: number;
  /** A Deployment's Progressing condition said ProgressDeadlineExceeded. */
  progressDeadlineExceeded: boolean;
  pods: readonly ObservedPod[];
  /** Its spec.selector.matchLabels: how a sidecar in one of its pods knows it (rollout-canary.ts). */
  matchLabels?: Record<string, string> | undefined;
}

export interface WorkloadHealth {
  state: WorkloadHealthState;
  message: string;
}

/** Restart counts of the pods that had restarted before the change (a pod left out had none). */
export function restartsBefore(workload: ObservedWorkload): Record<string, number> {
  return Object.fromEntries(workload.pods.filter((p) => p.restarts > 0).map((p) => [p.name, p.restarts]));
}

/**
 * The health of a workload after a change. Unhealthy when a pod restarted since the change
 * (baseline: its count before, 0 for a pod started since) or cannot run, or when the rollout
 * ran out of its progress deadline; Progressing while the rollout or the pods' readiness is
 * not complete; Healthy otherwise.
 */
export function workloadHealth(
  workload: ObservedWorkload,
  before: Readonly<Record<string, number>>,
): WorkloadHealth {
  for (const pod of workload.pods) {
    const restarted = pod.restarts - (before[pod.name] ?? 0);
    if (pod.waitingReason !== undefined && BROKEN_WAITING_REASONS.has(pod.waitingReason))
      return { state: "Unhealthy", message: `${pod.name}: ${pod.waitingReason} after the change` };
    if (restarted > 0)
      return {
        state: "Unhealthy",
        message: `${pod.name}: restarted ${restarted} time${restarted === 1 ? "" : "s"} after the change`,
      };
  }
  if (workload.progressDeadlineExceeded)
    return { state: "Unhealthy", message: `${workload.kind} ${workload.name}: ProgressDeadlineExceeded` };
  if (workload.observedGeneration < workload.generation)
    return {
      state: "Progressing",
      message: `${workload.kind} ${workload.name}: the change is not observed yet`,
    };
  if (workload.updated < workload.desired)
    return {
      state: "Progressing",
      message: `${workload.kind} ${workload.name}: ${workload.updated} of ${workload.desired} updated`,
    };
  const unready = workload.pods.filter((p) => !p.ready);
  if (workload.ready < workload.desired || unready.length > 0)
    return {
      state: "Progressing",
      message: `${workload.kind} ${workload.name}: ${workload.ready} of ${workload.desired} ready${
        unready.length > 0 ? ` (${unready.map((p) => p.name).join(", ")} not ready)` : ""
      }`,
    };
  return {
    state: "Healthy",
    message: `${workload.kind} ${workload.name}: ${workload.ready} of ${workload.desired} ready`,
  };
}

/** The structural subset of a core/v1 Pod the gate reads (client-node's V1Pod satisfies it). */
export interface PodObject {
  metadata?: { name?: string | undefined; deletionTimestamp?: Date | string | undefined } | undefined;
  status?:
    | {
        conditions?: readonly { type: string; status: string }[] | undefined;
        containerStatuses?: readonly ContainerStatusObject[] | undefined;
        initContainerStatuses?: readonly ContainerStatusObject[] | undefined;
      }
    | undefined;
}

interface ContainerStatusObject {
  restartCount: number;
  state?: { waiting?: { reason?: string | undefined } | undefined } | undefined;
}

/** A Pod as the gate sees it; a pod being deleted is left out (it is the old revision going). */
export function observePod(pod: PodObject): ObservedPod | undefined {
  if (pod.metadata?.deletionTimestamp !== undefined) return undefined;
  const containers = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const waitingReason = containers.map((c) => c.state?.waiting?.reason).find((r) => r !== undefined);
  return {
    name: pod.metadata?.name ?? "",
    ready: pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false,
    restarts: containers.reduce((sum, c) => sum + c.restartCount, 0),
    ...(waitingReason === undefined ? {} : { waitingReason }),
  };
}

/** The structural subset of an apps/v1 workload's metadata and status the gate reads. */
export interface WorkloadStatusObject {
  metadata?: { name?: string | undefined; generation?: number | undefined } | undefined;
  spec?:
    | {
        replicas?: number | undefined;
        selector?: { matchLabels?: Record<string, string> | undefined } | undefined;
      }
    | undefined;
  status?:
    | {
        observedGeneration?: number | undefined;
        replicas?: number | undefined;
        updatedReplicas?: number | undefined;
        readyReplicas?: number | undefined;
        desiredNumberScheduled?: number | undefined;
        updatedNumberScheduled?: number | undefined;
        numberReady?: number | undefined;
        conditions?: readonly { type: string; status: string; reason?: string | undefined }[] | undefined;
      }
    | undefined;
}

/** A Deployment, StatefulSet or DaemonSet and its pods, as the gate sees them. */
export function observeWorkload(
  kind: WorkloadKind,
  object: WorkloadStatusObject,
  pods: readonly PodObject[],
): ObservedWorkload {
  const status = object.status ?? {};
  const daemon = kind === "DaemonSet";
  return {
    kind,
    name: object.metadata?.name ?? "",
    generation: object.metadata?.generation ?? 0,
    observedGeneration: status.observedGeneration ?? 0,
    desired: daemon ? (status.desiredNumberScheduled ?? 0) : (object.spec?.replicas ?? 1),
    updated: (daemon ? status.updatedNumberScheduled : status.updatedReplicas) ?? 0,
    ready: (daemon ? status.numberReady : status.readyReplicas) ?? 0,
    progressDeadlineExceeded:
      status.conditions?.some((c) => c.type === "Progressing" && c.reason === "ProgressDeadlineExceeded") ??
      false,
    pods: pods.flatMap((pod) => observePod(pod) ?? []),
    matchLabels: object.spec?.selector?.matchLabels ?? {},
  };
}
