import { pageAfter, compareKeys, type SortKey, type SortKeyShape } from "@svc/core";
import { listPageJson, type ListPaging } from "../http/list-reply.ts";
import { authorOf, shownPhase, type Plan } from "./rules.ts";
import type { RolloutView } from "@svc/core";
import type { RolloutListQuery } from "./schemas.ts";

function createdAt(plan: Plan): string {
  const created = plan.metadata.creationTimestamp;
  if (created === undefined) return new Date(0).toISOString();
  return typeof created === "string" ? created : created.toISOString();
}

/** A plan as the API shows it; `status` is {} until the operator writes one. */
export function rolloutView(plan: Plan): RolloutView {
  return {
    name: plan.metadata.name,
    author: authorOf(plan),
    createdAt: createdAt(plan),
    spec: plan.spec,
    status: plan.status ?? {},
  };
}

/** Newest first, then by name: the key ascends in the list's order (its time negated). */
export const ROLLOUT_KEY: SortKeyShape = ["number", "string"];
const rolloutKey = (plan: Plan): SortKey => [-Date.parse(createdAt(plan)), plan.metadata.name];

/** The plans that pass the list's filters, in the list's order. */
export function listedPlans(plans: readonly Plan[], query: RolloutListQuery): Plan[] {
  const [namespace, name] = query.flag?.split("/") ?? [];
  return plans
    .filter(
      (plan) =>
        (query.flag === undefined ||
          (plan.spec.flag.namespace === namespace && plan.spec.flag.name === name)) &&
        (query.phase === undefined || shownPhase(plan) === query.phase),
    )
    .sort((a, b) => compareKeys(rolloutKey(a), rolloutKey(b)));
}

/** The answer's JSON: an array without paging, else one page in Kubernetes' list shape. */
export function rolloutListJson(plans: readonly Plan[], query: RolloutListQuery, paging: ListPaging): string {
  const listed = listedPlans(plans, query);
  const json = (plan: Plan) => JSON.stringify(rolloutView(plan));
  if (!paging.paged) return `[${listed.map(json).join(",")}]`;
  const page = pageAfter(listed, rolloutKey, paging.after, paging.limit ?? Number.MAX_SAFE_INTEGER);
  return listPageJson(page.items.map(json), page, paging.fingerprint);
}
