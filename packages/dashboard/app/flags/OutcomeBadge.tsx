import type { TargetOutcome } from "@svc/core/browser";

const TONE: Record<TargetOutcome, string> = {
  delivered: "ok",
  pending: "warn",
  conflict: "bad",
  invalid: "bad",
  disabled: "",
};

/** What became of a flag at one workload, as the flag page and the workload page show it. */
export function OutcomeBadge({ outcome }: { outcome: TargetOutcome }) {
  return <span className={`badge ${TONE[outcome]}`}>{outcome}</span>;
}
