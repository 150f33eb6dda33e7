/**
 * The blast radius of saving a flag: which workloads its selector (or its previous selector)
 * reaches, and which of them restart. Built on planWorkload, comparing the workload's plan with
 * the flag as stored against its plan with the candidate, so the preview says what delivery
 * will do, and, for a targeted flag, the value each workload gets.
 */
import Type from "typebox";
import { planWorkload } from "./delivery-plan.ts";
import type { DeliveryCluster } from "./delivered-value.ts";
import type { DeliveryScope } from "./delivery-policy.ts";
import { indexFlags } from "./flag-index.ts";
import { restartReasons } from "./delivery-state.ts";
import type { FeatureFlagResource } from "../flags/flag-resource.ts";
import { flagMatchesWorkload } from "./matching.ts";
import {
  compareWorkloads,
  WORKLOAD_KINDS,
  workloadName,
  workloadNamespace,
  type Workload,
} from "../kubernetes/workload.ts";

export const PreviewEntry = Type.Object(
  {
    kind: Type.Enum([...WORKLOAD_KINDS]),
    namespace: Type.String(),
    name: Type.String(),
    matchedBy: Type.Enum(["labels", "podTemplateLabels", "none"], {
      description:
        "Which labels of the workload the selector matches; none: only the flag as stored matches " +
        "it, and saving withdraws the flag from it.",
    }),
    restarts: Type.Boolean({ description: "Saving changes the pod template: the pods roll." }),
    reasons: Type.Array(Type.String(), { description: "Why it restarts; empty when it does not." }),
    value: Type.Optional(
      Type.String({
        description:
          "The value an envVar or configMap flag delivers to the workload once saved (its targeting " +
          "evaluated for the workload); absent when it delivers none there (sidecar, disabled, conflict, withdrawn).",
      }),
    ),
  },
  { additionalProperties: false },
);
export type PreviewEntry = Type.Static<typeof PreviewEntry>;

export interface PreviewInput {
  /** The flag as it would be saved. */
  candidate: FeatureFlagResource;
  /** The flag as stored; by default the flag of the candidate's name in namespaceFlags (none on create). */
  previous?: FeatureFlagResource | undefined;
  /** The workloads of the candidate's namespace (others are ignored). */
  workloads: readonly Workload[];
  /** Every FeatureFlag of the candidate's namespace, as stored. */
  namespaceFlags: readonly FeatureFlagResource[];
  /** The cluster of the workloads: targeting evaluates there. */
  cluster: DeliveryCluster;
  /** Where the installation delivers in the candidate's namespace (as the operator plans with it). */
  scope?: DeliveryScope | undefined;
}

export function previewFlag(input: PreviewInput): PreviewEntry[] {
  const { candidate, workloads, namespaceFlags, cluster, scope } = input;
  const sameFlag = (f: FeatureFlagResource) =>
    f.metadata.name === candidate.metadata.name && f.metadata.namespace === candidate.metadata.namespace;
  const previous = input.previous ?? namespaceFlags.find(sameFlag);
  const others = namespaceFlags.filter((f) => !sameFlag(f));
  const before = indexFlags(previous === undefined ? others : [...others, previous]);
  const after = indexFlags([...others, candidate]);
  const entries: PreviewEntry[] = [];
  for (const workload of workloads) {
    const matchedBy = flagMatchesWorkload(candidate, workload);
    const matchedBefore = previous === undefined ? undefined : flagMatchesWorkload(previous, workload);
    if (matchedBy === undefined && matchedBefore === undefined) continue;
    const planned = planWorkload(workload, after, cluster, scope);
    const reasons = restartReasons(planWorkload(workload, before, cluster, scope).desired, planned.desired);
    const value = planned.flags.find((f) => f.flag === candidate.metadata.name)?.value;
    entries.push({
      kind: workload.kind,
      namespace: workloadNamespace(workload),
      name: workloadName(workload),
      matchedBy: matchedBy ?? "none",
      restarts: reasons.length > 0,
      reasons,
      ...(value === undefined ? {} : { value }),
    });
  }
  return entries.sort(compareWorkloads);
}
