/**
 * A flag's status from the plans of its namespace's workloads: one target per workload it
 * matches, and the phase the operator writes and the API shows ("where is my flag").
 */
import { isEnabled } from "./basics.ts";
import { setCondition } from "./conditions.ts";
import type { WorkloadPlan } from "./delivery-plan.ts";
import { undeliverableReason, type FeatureFlagResource } from "./flag-resource.ts";
import {
  deliveryKind,
  STATUS_TARGETS_MAX,
  type FeatureFlagStatus,
  type FlagPhase,
  type FlagTarget,
} from "./flag.ts";
import { compareWorkloads } from "./workload.ts";

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
 * Delivered condition keeps its transition time while its status holds.
 */
export function flagStatus(
  flag: FeatureFlagResource,
  plans: readonly WorkloadPlan[],
  now: Date,
): FeatureFlagStatus {
  const targets = flagTargets(flag, plans);
  const invalid = undeliverableReason(flag.spec);
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
        type: "Delivered",
        status: phase === "Delivered" ? "True" : "False",
        ...observed,
        reason: phase,
        message,
      },
      now,
    ),
  };
}
