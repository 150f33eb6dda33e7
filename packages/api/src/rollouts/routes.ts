import { randomInt } from "node:crypto";
import { RolloutCreateBody, type Actor, type FlagRolloutSpec, type Refusal } from "@svc/core";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import Type from "typebox";
import { changedFields } from "../audit/event.ts";
import { readyCluster } from "../clusters/reach.ts";
import type { ApiContext } from "../context.ts";
import { existingFlag, FlagParams } from "../flags/routes.ts";
import { HttpError } from "../http/errors.ts";
import { listPaging, sendList } from "../http/list-reply.ts";
import { isoTime } from "../time.ts";
import { readFilter, requireScopes } from "../http/scope.ts";
import { checkedPlan, registeredPlanClusters } from "./checks.ts";
import {
  actionPatch,
  approvalDecision,
  auditClusters,
  creationConflict,
  defaultPlanName,
  deletionRefusal,
  PLAN_ACTIONS,
  planClusterIds,
  promotedChange,
  type Decided,
  type Plan,
  type PlanAction,
} from "./rules.ts";
import {
  ApprovalBody,
  PromoteBody,
  PromoteQuery,
  RolloutList,
  RolloutListQuery,
  RolloutParams,
  RolloutView,
} from "./schemas.ts";
import {
  createPlan,
  deletePlan,
  listPlans,
  patchPlanSpec,
  planManifest,
  planStore,
  readPlan,
  updatePlanStatus,
} from "./store.ts";
import { rolloutListJson, ROLLOUT_KEY, rolloutView } from "./view.ts";

/** The one place where the rules' refusals become the client's errors. */
function refuse(refusal: Refusal | undefined): void {
  if (refusal !== undefined) throw new HttpError(refusal.status, refusal.error);
}

function decided<T>(decision: Decided<T>): T {
  if (!decision.ok) throw new HttpError(decision.status, decision.error);
  return decision;
}

/** The auth hook ran before any handler of these routes: a missing actor is a wiring bug. */
function actorOf(request: FastifyRequest): Actor {
  if (request.actor === undefined) throw new Error(`no authenticated actor on ${request.routeKey ?? "?"}`);
  return request.actor;
}

/** What the audit log shows of a plan it creates or deletes. */
function auditFields(spec: FlagRolloutSpec): Record<string, unknown> {
  const { flag, ...rest } = spec;
  return { flag: `${flag.namespace}/${flag.name}`, ...rest };
}

/** Every cluster of a plan's waves, each in its flag's namespace: where a plan's role is needed. */
function planScopes(ctx: ApiContext, plan: Plan): { clusterId: string; namespace: string }[] {
  const ids = planClusterIds(plan, registeredPlanClusters(ctx));
  return ids.map((clusterId) => ({ clusterId, namespace: plan.spec.flag.namespace }));
}

/**
 * The audit event of a request on an existing plan (the plan, its flag's namespace, its
 * clusters), once the caller's role in every cluster of the plan is checked (403 otherwise).
 */
function notePlan(ctx: ApiContext, request: FastifyRequest, plan: Plan): void {
  request.auditNote = {
    ...request.auditNote,
    resourceName: plan.metadata.name,
    namespace: plan.spec.flag.namespace,
    cluster: auditClusters(planClusterIds(plan, registeredPlanClusters(ctx))),
  };
  requireScopes(ctx, request, planScopes(ctx, plan));
}

/**
 * Creates a plan of `spec` after every check (shape, waves, the flag and its change in each
 * cluster; then one plan per flag and a free name, 409), authored by the caller; answers 201.
 */
async function createChecked(
  ctx: ApiContext,
  request: FastifyRequest,
  reply: FastifyReply,
  input: { name?: string | undefined; spec: FlagRolloutSpec; details?: Record<string, unknown> },
) {
  const name = input.name ?? defaultPlanName(input.spec.flag.name, (n) => randomInt(n));
  request.auditNote = { ...request.auditNote, resourceName: name, namespace: input.spec.flag.namespace };
  const { spec, clusters } = await checkedPlan(ctx, input.spec);
  request.auditNote.cluster = auditClusters(clusters);
  requireScopes(
    ctx,
    request,
    clusters.map((clusterId) => ({ clusterId, namespace: spec.flag.namespace })),
  );
  const store = planStore(ctx);
  refuse(creationConflict(name, spec.flag, await listPlans(store)));
  const created = await createPlan(store, planManifest(store, name, actorOf(request).username, spec));
  request.auditNote.details = { ...changedFields({}, auditFields(spec)), ...input.details };
  return reply.code(201).send(rolloutView(created));
}

const ACTION_SUMMARIES: Readonly<Record<PlanAction, string>> = {
  pause: "Pause a plan: no further wave starts (admin, editor)",
  resume: "Resume a paused plan (admin, editor)",
  abort: "Abort a plan: every applied wave is rolled back (admin, editor)",
  "skip-bake": "Skip the rest of the current wave's bake; its gate still needs it healthy (admin, editor)",
};

type Params = Type.Static<typeof RolloutParams>;

/** GET /api/v1/rollouts: every plan, newest first; filtered by flag and phase; paged with limit. */
function listRollouts(app: FastifyInstance, ctx: ApiContext): void {
  app.get<{ Querystring: RolloutListQuery }>(
    "/api/v1/rollouts",
    {
      schema: {
        summary: "Every plan, newest first; filtered by flag and phase; paged with limit",
        querystring: RolloutListQuery,
        response: { 200: Type.Union([Type.Array(RolloutView), RolloutList]) },
      },
    },
    async (request, reply) => {
      const paging = listPaging("rollouts", request.query, ROLLOUT_KEY);
      const plans = await listPlans(planStore(ctx));
      // A plan is listed to those who may read every cluster it changes (as GET of it).
      const readable = readFilter(ctx, request);
      const visible = plans.filter((plan) =>
        planScopes(ctx, plan).every((s) => readable(s.clusterId, s.namespace)),
      );
      return sendList(request, reply, rolloutListJson(visible, request.query, paging));
    },
  );
}

/** POST /api/v1/rollouts: create a plan, a change to one flag applied wave by wave (admin, editor). */
function createRollout(app: FastifyInstance, ctx: ApiContext): void {
  app.post<{ Body: RolloutCreateBody }>(
    "/api/v1/rollouts",
    {
      schema: {
        summary: "Create a plan: a change to one flag, applied wave by wave (admin, editor)",
        body: RolloutCreateBody,
        response: { 201: RolloutView },
      },
    },
    (request, reply) => {
      const { name, ...spec } = request.body;
      return createChecked(ctx, request, reply, { name, spec });
    },
  );
}

/** POST /api/v1/flags/:namespace/:name/promote: a plan whose change is this flag's value in the source cluster (admin, editor). */
function promoteFlag(app: FastifyInstance, ctx: ApiContext): void {
  app.post<{
    Params: Type.Static<typeof FlagParams>;
    Querystring: Type.Static<typeof PromoteQuery>;
    Body: PromoteBody;
  }>(
    "/api/v1/flags/:namespace/:name/promote",
    {
      schema: {
        summary: "Create a plan whose change is this flag's value in the source cluster (admin, editor)",
        params: FlagParams,
        querystring: PromoteQuery,
        body: PromoteBody,
        response: { 201: RolloutView },
      },
    },
    async (request, reply) => {
      const { clusterId } = request.query;
      const source = existingFlag(await readyCluster(ctx, clusterId), request.params);
      const { name, waves, startAt, progressDeadlineSeconds } = request.body;
      const spec: FlagRolloutSpec = {
        flag: { namespace: source.metadata.namespace, name: source.metadata.name },
        change: promotedChange(source.spec),
        waves,
        ...(startAt === undefined ? {} : { startAt }),
        ...(progressDeadlineSeconds === undefined ? {} : { progressDeadlineSeconds }),
      };
      return createChecked(ctx, request, reply, { name, spec, details: { source: clusterId } });
    },
  );
}

/** GET /api/v1/rollouts/:name: one plan. */
function getRollout(app: FastifyInstance, ctx: ApiContext): void {
  app.get<{ Params: Params }>(
    "/api/v1/rollouts/:name",
    { schema: { summary: "One plan", params: RolloutParams, response: { 200: RolloutView } } },
    async (request) => {
      const plan = await readPlan(planStore(ctx), request.params.name);
      requireScopes(ctx, request, planScopes(ctx, plan));
      return rolloutView(plan);
    },
  );
}

/** DELETE /api/v1/rollouts/:name: delete a finished plan (admin, editor); an unfinished one is aborted first. */
function deleteRollout(app: FastifyInstance, ctx: ApiContext): void {
  app.delete<{ Params: Params }>(
    "/api/v1/rollouts/:name",
    {
      schema: {
        summary: "Delete a finished plan (admin, editor); an unfinished one is aborted first",
        params: RolloutParams,
        response: { 204: Type.Null({ description: "Deleted" }) },
      },
    },
    async (request, reply) => {
      const store = planStore(ctx);
      const plan = await readPlan(store, request.params.name);
      notePlan(ctx, request, plan);
      refuse(deletionRefusal(plan));
      await deletePlan(store, plan);
      request.auditNote = { ...request.auditNote, details: changedFields(auditFields(plan.spec), {}) };
      return reply.code(204).send();
    },
  );
}

/** POST /api/v1/rollouts/:name/{pause,resume,abort,skip-bake}: one route per PLAN_ACTIONS entry. */
function planActionRoutes(app: FastifyInstance, ctx: ApiContext): void {
  for (const action of PLAN_ACTIONS)
    app.post<{ Params: Params }>(
      `/api/v1/rollouts/:name/${action}`,
      {
        schema: {
          summary: ACTION_SUMMARIES[action],
          params: RolloutParams,
          response: { 200: RolloutView },
        },
      },
      async (request) => {
        const store = planStore(ctx);
        const plan = await readPlan(store, request.params.name);
        notePlan(ctx, request, plan);
        const { spec } = decided(actionPatch(plan, action));
        const patched = await patchPlanSpec(store, plan, spec);
        const before = Object.fromEntries(
          Object.keys(spec).map((key) => [key, plan.spec[key as keyof FlagRolloutSpec]]),
        );
        request.auditNote = { ...request.auditNote, details: changedFields(before, spec) };
        return rolloutView(patched);
      },
    );
}

/** POST /api/v1/rollouts/:name/approve and /reject: an approver's decision on a plan that touches protected clusters. */
function approvalRoutes(app: FastifyInstance, ctx: ApiContext): void {
  for (const [path, decision] of [
    ["approve", "Approved"],
    ["reject", "Rejected"],
  ] as const)
    app.post<{ Params: Params; Body: ApprovalBody }>(
      `/api/v1/rollouts/:name/${path}`,
      {
        schema: {
          summary:
            decision === "Approved"
              ? "Approve a plan that touches protected clusters; never its author's (admin, editor)"
              : "Reject a plan awaiting approval; its author may, to withdraw it (admin, editor)",
          params: RolloutParams,
          body: ApprovalBody,
          response: { 200: RolloutView },
        },
      },
      async (request) => {
        const { username } = actorOf(request);
        const { comment, spec: seen } = request.body;
        const { after } = await updatePlanStatus(planStore(ctx), request.params.name, (plan) => {
          notePlan(ctx, request, plan);
          const at = isoTime(ctx.now());
          return {
            approval: decided(approvalDecision(plan, { decision, username, comment, at, seen })).approval,
          };
        });
        request.auditNote = {
          ...request.auditNote,
          details: changedFields({}, { approval: after.status?.approval }),
        };
        return rolloutView(after);
      },
    );
}

export function rolloutRoutes(ctx: ApiContext) {
  return (app: FastifyInstance, _options: unknown, done: () => void) => {
    // Plans hold free JSON (a change's targeting, the values a rollback restores), which a
    // schema-compiled serializer would empty: these routes answer plain JSON.stringify. Their
    // schemas still document the answers.
    app.setSerializerCompiler(() => (data) => JSON.stringify(data));
    for (const route of [
      listRollouts,
      createRollout,
      promoteFlag,
      getRollout,
      deleteRollout,
      planActionRoutes,
      approvalRoutes,
    ])
      route(app, ctx);
    done();
  };
}
