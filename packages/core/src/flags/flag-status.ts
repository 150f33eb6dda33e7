/**
 * A flag's status from the plans of its namespace's workloads: one target per workload it
 * matches, and the phase the operator writes and the API shows ("where is my flag"); whether
 * it differs from the stored one, and the Event recorded when its phase changes.
 */
import { isEnabled } from "./values.ts";
import { API_GROUP_VERSION, FEATURE_FLAG } from "../vocabulary.ts";
import { canonicalJson } from "../schema/canonical-json.ts";
import { metaTime, setCondition } from "../kubernetes/conditions.ts";
import type { WorkloadPlan } from "../delivery/delivery-plan.ts";
import { undeliverableReason, type FeatureFlagResource } from "./flag-resource.ts";
import {
  deliveryKind,
  STATUS_TARGETS_MAX,
  type FeatureFlagStatus,
  type FlagPhase,
  type FlagTarget,
} from "./flag.ts";
import { compareWorkloads } from "../kubernetes/workload.ts";

/** The finalizer with which the operator withdraws a deleted flag from its workloads first. */
export const DELIVERY_FINALIZER = "svc.io/delivery";

/** The flag's targets, ordered by kind then name. */
export function flagTargets(
  flag: Pick<FeatureFlagResource, "metadata">,
  plans: readonly WorkloadPlan[],
): FlagTarget[] {
  return plans
    .filter((plan) => plan.namespace === flag.metadata.namespace)
    .flatMap((plan) => {
      const result = plan.flags.find((f) => f.flag === flag.metadata.name);
      if (result === undefined) return [];
      const target: FlagTarget = {
        kind: plan.kind,
        name: plan.name,
        delivered: result.outcome === "delivered",
        outcome: result.outcome,
      };
      const carriesHash = result.delivery === "envVar" && plan.flagsHash !== undefined;
      if (carriesHash && (result.outcome === "delivered" || result.outcome === "pending")) {
        target.hash = plan.flagsHash;
      }
      if (result.message !== "") target.message = result.message;
      return [{ plan, target }];
    })
    .sort((a, b) => compareWorkloads(a.plan, b.plan))
    .map(({ target }) => target);
}

/**
 * NoTargets: no workload matches. Degraded: a target cannot get the flag (conflict, invalid
 * value). Pending: a target has not got it yet. Delivered: every target carries the flag as it
 * should (for a disabled flag: its value withdrawn).
 */
export function flagPhase(targets: readonly Pick<FlagTarget, "outcome" | "delivered">[]): FlagPhase {
  if (targets.length === 0) return "NoTargets";
  const outcomes = targets.map((t) => t.outcome ?? (t.delivered ? "delivered" : "pending"));
  if (outcomes.some((o) => o === "conflict" || o === "invalid")) return "Degraded";
  if (outcomes.includes("pending")) return "Pending";
  return "Delivered";
}

const isProblem = (t: FlagTarget) => t.outcome === "conflict" || t.outcome === "invalid";
const describeTarget = (t: FlagTarget) => `${t.kind} ${t.name}${t.message ? `: ${t.message}` : ""}`;
const workloadsWord = (n: number) => `${n} workload${n === 1 ? "" : "s"}`;

function summary(flag: FeatureFlagResource, phase: FlagPhase, targets: readonly FlagTarget[]): string {
  switch (phase) {
    case "NoTargets":
      return `no Deployment, StatefulSet or DaemonSet of namespace ${flag.metadata.namespace} matches the selector`;
    case "Degraded": {
      const problems = targets.filter(isProblem);
      const shown = problems.slice(0, 3).map(describeTarget).join("; ");
      const more = problems.length > 3 ? `; and ${problems.length - 3} more` : "";
      return `${problems.length} of ${targets.length} targets cannot get the flag: ${shown}${more}`;
    }
    case "Pending": {
      const pending = targets.filter((t) => t.outcome === "pending" || (!t.outcome && !t.delivered)).length;
      return `${pending} of ${targets.length} targets not updated yet`;
    }
    case "Delivered":
      return isEnabled(flag.spec)
        ? `delivered to ${workloadsWord(targets.length)}`
        : `disabled: withdrawn from ${workloadsWord(targets.length)}`;
  }
}

/** At most STATUS_TARGETS_MAX targets, those needing attention first, in kind/name order. */
function listedTargets(targets: readonly FlagTarget[]): FlagTarget[] {
  if (targets.length <= STATUS_TARGETS_MAX) return [...targets];
  const attention = (t: FlagTarget) => (isProblem(t) ? 0 : t.outcome === "pending" ? 1 : 2);
  const kept = new Set([...targets].sort((a, b) => attention(a) - attention(b)).slice(0, STATUS_TARGETS_MAX));
  return targets.filter((t) => kept.has(t));
}

/**
 * The status the operator writes for a flag once it has planned the workloads of the flag's
 * namespace. A flag whose value cannot be delivered is Degraded even without targets. The
 * Ready condition (True when Delivered, or with nothing to deliver to: `kubectl wait
 * --for=condition=Ready` waits for the rollout) keeps its transition time while its status holds.
 */
export function flagStatus(
  flag: FeatureFlagResource,
  plans: readonly WorkloadPlan[],
  now: Date,
  /** Why the installation refuses the flag as a whole (its namespace gets no flags, its ConfigMap is not svc's). */
  refusal?: string,
): FeatureFlagStatus {
  const targets = flagTargets(flag, plans);
  const invalid = undeliverableReason(flag.spec) ?? refusal;
  const phase = invalid === undefined ? flagPhase(targets) : "Degraded";
  const listed = listedTargets(targets);
  const unlisted =
    listed.length < targets.length ? ` (${targets.length - listed.length} targets not listed)` : "";
  const message = (invalid ?? summary(flag, phase, targets)) + unlisted;
  const generation = flag.metadata.generation;
  const observed = generation === undefined ? {} : { observedGeneration: generation };
  return {
    ...observed,
    phase,
    delivery: deliveryKind(flag.spec.delivery),
    targets: listed,
    message,
    conditions: setCondition(
      flag.status?.conditions,
      {
        type: "Ready",
        status: phase === "Delivered" || phase === "NoTargets" ? "True" : "False",
        ...observed,
        reason: phase,
        message,
      },
      now,
    ),
  };
}

/**
 * Whether the flag's status was written for its current spec. A flag whose status lags (or
 * has none) holds a change the operator has not delivered yet: the API shows it Pending, and an
 * operator taking the cluster over queues it ahead of what it only re-checks.
 */
export function statusIsCurrent(flag: Pick<FeatureFlagResource, "metadata" | "status">): boolean {
  const observed = flag.status?.observedGeneration;
  return observed !== undefined && observed === flag.metadata.generation;
}

export function sameStatus(stored: FeatureFlagStatus | undefined, desired: FeatureFlagStatus): boolean {
  return stored !== undefined && canonicalJson(stored) === canonicalJson(desired);
}

/** A core/v1 Event about a flag (a type, not an interface: it is passed where any object goes). */
export type FlagEvent = {
  apiVersion: "v1";
  kind: "Event";
  metadata: { name: string; namespace: string };
  involvedObject: {
    apiVersion: string;
    kind: string;
    name: string;
    namespace: string;
    uid?: string | undefined;
  };
  type: "Normal" | "Warning";
  reason: FlagPhase;
  message: string;
  source: { component: string };
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
};

/**
 * The Kubernetes Event recorded on a flag whose phase changes (`kubectl describe featureflag`
 * shows it), or undefined when the phase holds: events follow status writes, never resyncs.
 */
export function phaseChangeEvent(
  flag: FeatureFlagResource,
  status: FeatureFlagStatus,
  now: Date,
): FlagEvent | undefined {
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
    message: status.message ?? phase,
    source: { component: "svc-operator" },
    firstTimestamp: time,
    lastTimestamp: time,
    count: 1,
  };
}
