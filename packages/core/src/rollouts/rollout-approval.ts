// An approval is of one change (docs/safe-changes.md "Approval"): it records a digest of what the
// plan does, and holds only while the plan still does exactly that. A plan edited after its
// approval (kubectl edit, GitOps) waits for a second user again, in the operator, which is what
// kubectl cannot walk around.
import { createHash } from "node:crypto";
import { canonicalJson } from "../schema/canonical-json.ts";
import {
  DEFAULT_BAKE_SECONDS,
  DEFAULT_PROGRESS_DEADLINE_SECONDS,
  type Approval,
  type FlagRolloutSpec,
} from "./flag-rollout.ts";

/**
 * SHA-256 (hex) of what a plan does: its flag, change, waves (clusters, bakes, canary shares),
 * start time and progress deadline, defaults filled in, so that writing a default out changes
 * nothing. Left out: pause, abort and skip-bake, the actions every writer takes on a running
 * plan (pausing or aborting makes it do less, never something else).
 */
export function planChangeDigest(spec: FlagRolloutSpec): string {
  const defining = {
    flag: spec.flag,
    change: spec.change,
    waves: spec.waves.map((wave) => ({ ...wave, bakeSeconds: wave.bakeSeconds ?? DEFAULT_BAKE_SECONDS })),
    startAt: spec.startAt ?? null,
    progressDeadlineSeconds: spec.progressDeadlineSeconds ?? DEFAULT_PROGRESS_DEADLINE_SECONDS,
  };
  return createHash("sha256").update(canonicalJson(defining)).digest("hex");
}

/** Whether an approval was given to this plan as it is now (one without a digest never is). */
export function approvalHolds(spec: FlagRolloutSpec, approval: Approval | undefined): boolean {
  return (
    approval?.decision === "Approved" &&
    approval.digest !== undefined &&
    approval.digest === planChangeDigest(spec)
  );
}
