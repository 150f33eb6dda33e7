// What the API decides about FlagRollout plans, as pure functions of the plans read: one plan per
// flag at a time, what each action writes, who may approve. No Kubernetes, no HTTP: refusals are
// data, turned into HTTP errors by the routes in one place.
import {
  isFinishedPlan,
  planChangeDigest,
  ROLLOUT_AUTHOR_ANNOTATION,
  ROLLOUT_CHANGE_FIELDS,
  resolveWaves,
  shownRolloutPhase,
  type Approval,
  type FeatureFlagSpec,
  type FlagRolloutResource,
  type FlagRolloutSpec,
  type PlanCluster,
  type Refusal,
  type RolloutChange,
  type RolloutPhase,
} from "@svc/core";

/** A FlagRollout as read from the hub. */
export type Plan = FlagRolloutResource;

/** The spec actions of POST /api/v1/rollouts/{name}/<action>. */
export const PLAN_ACTIONS = ["pause", "resume", "abort", "skip-bake"] as const;
export type PlanAction = (typeof PLAN_ACTIONS)[number];

export type Decided<T> = ({ ok: true } & T) | ({ ok: false } & Refusal);

const refusal = (status: Refusal["status"], error: string): { ok: false } & Refusal => ({
  ok: false,
  status,
  error,
});

/** The phase the API shows and filters by: a plan the operator has not picked up yet is Pending. */
export function shownPhase(plan: Plan): RolloutPhase {
  return shownRolloutPhase(plan.status);
}

/** A finished plan never changes again; one without a phase yet is unfinished. */
export function isFinished(plan: Plan): boolean {
  return isFinishedPlan(plan.status);
}

export function authorOf(plan: Plan): string {
  return plan.metadata.annotations?.[ROLLOUT_AUTHOR_ANNOTATION] ?? "";
}

const flagName = (flag: FlagRolloutSpec["flag"]) => `${flag.namespace}/${flag.name}`;

/** 409 when the flag already has an unfinished plan (one plan per flag at a time), or the name is taken. */
export function creationConflict(
  name: string,
  flag: FlagRolloutSpec["flag"],
  plans: readonly Plan[],
): Refusal | undefined {
  const unfinished = plans.find(
    (plan) =>
      plan.spec.flag.namespace === flag.namespace && plan.spec.flag.name === flag.name && !isFinished(plan),
  );
  if (unfinished !== undefined)
    return {
      status: 409,
      error: `plan ${unfinished.metadata.name} of flag ${flagName(flag)} is unfinished (${shownPhase(unfinished)}); one plan per flag at a time`,
    };
  if (plans.some((plan) => plan.metadata.name === name))
    return { status: 409, error: `plan ${name} already exists: choose another name` };
  return undefined;
}

const NAME_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const NAME_SUFFIX_LENGTH = 5;

/**
 * `<flag name>-<5 random lowercase alphanumerics>`, cut to a DNS-1123 label's 63 characters;
 * `randomIndex(n)` is an integer in [0, n).
 */
export function defaultPlanName(flag: string, randomIndex: (n: number) => number): string {
  let suffix = "";
  for (let i = 0; i < NAME_SUFFIX_LENGTH; i++)
    suffix += NAME_ALPHABET.charAt(randomIndex(NAME_ALPHABET.length));
  const base = flag.slice(0, 63 - NAME_SUFFIX_LENGTH - 1).replace(/-+$/, "");
  return `${base}-${suffix}`;
}

/** What promoting a flag changes elsewhere: the fields of the plan's change that the source sets. */
export function promotedChange(source: FeatureFlagSpec): RolloutChange {
  const change: RolloutChange = {};
  for (const field of ROLLOUT_CHANGE_FIELDS)
    if (source[field] !== undefined) Object.assign(change, { [field]: source[field] });
  return change;
}

/** The spec fields an action sets; refused once the plan is finished. */
export function actionPatch(plan: Plan, action: PlanAction): Decided<{ spec: Partial<FlagRolloutSpec> }> {
  if (isFinished(plan)) return refusal(409, `plan ${plan.metadata.name} is finished (${shownPhase(plan)})`);
  switch (action) {
    case "pause":
      return { ok: true, spec: { paused: true } };
    case "resume":
      return { ok: true, spec: { paused: false } };
    case "abort":
      return { ok: true, spec: { abort: true } };
    case "skip-bake":
      return { ok: true, spec: { skipBake: plan.status?.currentWave ?? 0 } };
  }
}

export interface ApprovalRequest {
  decision: Approval["decision"];
  username: string;
  comment?: string | undefined;
  /** RFC 3339. */
  at: string;
  /** The spec the user read before deciding, when the client sends it. */
  seen?: FlagRolloutSpec | undefined;
}

/**
 * The approval a user's decision writes. Approving is a second user's: the author may not
 * (403), but may reject, which withdraws the plan. Only a plan the operator holds in
 * AwaitingApproval, undecided, takes a decision (409 otherwise).
 */
export function approvalDecision(plan: Plan, request: ApprovalRequest): Decided<{ approval: Approval }> {
  const name = plan.metadata.name;
  if (request.decision === "Approved" && authorOf(plan) !== "" && authorOf(plan) === request.username)
    return refusal(403, "the author of a plan cannot approve it: a second user must");
  const decided = plan.status?.approval;
  if (decided !== undefined)
    return refusal(
      409,
      `plan ${name} was already ${decided.decision.toLowerCase()} by ${decided.by} at ${decided.at}`,
    );
  if (shownPhase(plan) !== "AwaitingApproval")
    return refusal(409, `plan ${name} is not awaiting approval (${shownPhase(plan)})`);
  // A decision is on the plan the user read: one edited meanwhile is read again first.
  if (request.seen !== undefined && planChangeDigest(request.seen) !== planChangeDigest(plan.spec))
    return refusal(
      409,
      `plan ${name} changed since you read it (its change, waves or schedule): read it again before deciding`,
    );
  const { decision, username: by, comment, at } = request;
  // Bound to the plan as read: the operator drops an approval whose plan was edited afterwards.
  const digest = planChangeDigest(plan.spec);
  return { ok: true, approval: { decision, by, at, ...(comment === undefined ? {} : { comment }), digest } };
}

/** 409 while the plan is unfinished: deleting it would leave its applied waves in place. */
export function deletionRefusal(plan: Plan): Refusal | undefined {
  if (isFinished(plan)) return undefined;
  return {
    status: 409,
    error: `plan ${plan.metadata.name} is unfinished (${shownPhase(plan)}): abort it first`,
  };
}

/**
 * The clusters a plan touches, in wave order: the operator's frozen waves once it started, else
 * its waves resolved against the registered clusters now (ids alone when they no longer resolve).
 */
export function planClusterIds(plan: Plan, clusters: ReadonlyMap<string, PlanCluster>): string[] {
  const frozen = plan.status?.waves;
  if (frozen !== undefined) return frozen.flatMap((wave) => wave.clusters.map((cluster) => cluster.id));
  const resolved = resolveWaves(plan.spec.waves, clusters);
  if (resolved.ok) return resolved.waves.flat();
  return plan.spec.waves.flatMap((wave) => wave.clusters ?? []);
}

const AUDIT_CLUSTERS_MAX = 1024;

/** An audit event's cluster for a plan: its clusters, comma-separated, bounded. */
export function auditClusters(ids: readonly string[]): string {
  const joined = ids.join(",");
  return joined.length <= AUDIT_CLUSTERS_MAX ? joined : `${joined.slice(0, AUDIT_CLUSTERS_MAX - 1)}…`;
}
