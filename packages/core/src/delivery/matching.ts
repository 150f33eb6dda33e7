/**
 * DESIGN.md §5: a workload matches a flag when the flag's matchLabels all match the workload's
 * own labels or its pod template labels, in the flag's namespace. The one rule the operator's
 * delivery, the API's preview and the workload view all apply.
 */
import { flagMatchLabels, type FeatureFlagResource } from "../flags/flag-resource.ts";
import { selectorMatches } from "../kubernetes/label-selector.ts";
import { workloadNamespace, type Workload } from "../kubernetes/workload.ts";

export { selectorMatches };

export type MatchedBy = "labels" | "podTemplateLabels";

/** Which labels of the workload a selector matches (its own first), or undefined. */
export function selectorMatchesWorkload(
  matchLabels: Readonly<Record<string, string>>,
  workload: Workload,
): MatchedBy | undefined {
  if (selectorMatches(matchLabels, workload.object.metadata?.labels)) return "labels";
  if (selectorMatches(matchLabels, workload.object.spec?.template.metadata?.labels)) {
    return "podTemplateLabels";
  }
  return undefined;
}

/** Whether (and by which labels) a flag targets a workload: same namespace, selector matches. */
export function flagMatchesWorkload(
  flag: Pick<FeatureFlagResource, "metadata" | "spec">,
  workload: Workload,
): MatchedBy | undefined {
  if (flag.metadata.namespace !== workloadNamespace(workload)) return undefined;
  return selectorMatchesWorkload(flagMatchLabels(flag.spec), workload);
}
