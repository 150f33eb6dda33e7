/**
 * A flag's status from the plans of its namespace's workloads: one target per workload it
 * matches, and the phase the operator writes and the API shows ("where is my flag").
 */
import type { WorkloadPlan } from "./delivery-plan.ts";
import type { FeatureFlagResource } from "./flag-resource.ts";
import type { FlagPhase, FlagTarget } from "./flag.ts";
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
