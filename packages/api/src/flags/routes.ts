import {
  configMapConflict,
  describeErrors,
  evaluationKeyConflict,
  FlagCreateBody,
  FlagPreview,
  flagResource,
  FlagToggleBody,
  flagToggle,
  FlagUpdateBody,
  deliveryCluster,
  flagUpdate,
  FlagView,
  flagView,
  isEnabled,
  previewFlag,
  validateFlagCreate,
  validateFlagUpdate,
  type DeliveryScope,
  type FeatureFlagResource,
  type Validated,
} from "@svc/core";
import type { ConnectedCluster } from "@svc/kube";
import type { FastifyInstance } from "fastify";
import Type from "typebox";
import { changedFields } from "../audit/event.ts";
import { writtenFlag } from "../webhooks/events.ts";
import { flagAuditFields } from "./audit-fields.ts";
import { readyCluster, registry } from "../clusters/reach.ts";
import type { ApiContext } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { MessageBody } from "../http/schemas.ts";
import { workloadsOf } from "../workloads/read.ts";
import { listPaging, sendList } from "../http/list-reply.ts";
import { FLAG_KEY, FlagList, FlagListQuery, flagListJson } from "./list.ts";
import { createFlag, deleteFlag, replaceFlag, setFlagEnabled } from "./writes.ts";
import { deliveryScope, refuseUndeliverable, requireNamespace } from "./guardrails.ts";
import { guardDirectWrite } from "./protected-writes.ts";
import { readFilter, requireScopes } from "../http/scope.ts";

export const ClusterQuery = Type.Object(
  { clusterId: Type.String({ maxLength: 63, description: "The cluster that holds the flag." }) },
  { additionalProperties: false },
);
const WriteQuery = Type.Object(
  {
    clusterId: Type.String({ maxLength: 63, description: "The cluster that holds the flag." }),
    dryRun: Type.Optional(
      Type.Enum(["true", "false"], { description: "true: validate and preview, write nothing." }),
    ),
  },
  { additionalProperties: false },
);
const CreateQuery = Type.Object(
  {
    dryRun: Type.Optional(
      Type.Enum(["true", "false"], { description: "true: validate and preview, write nothing." }),
    ),
  },
  { additionalProperties: false },
);
export const FlagParams = Type.Object(
  { namespace: Type.String({ maxLength: 253 }), name: Type.String({ maxLength: 253 }) },
  { additionalProperties: false },
);

type Params = Type.Static<typeof FlagParams>;

/** The rules beyond the body's shape (the value parses as its type, identity matches the path). */
export function valid<T>(result: Validated<T>): T {
  if (!result.ok) throw new HttpError(400, describeErrors(result.errors));
  return result.value;
}

export function existingFlag(cluster: ConnectedCluster, { namespace, name }: Params): FeatureFlagResource {
  const flag = cluster.flags.get(namespace, name);
  if (flag === undefined)
    throw new HttpError(404, `flag ${namespace}/${name} not found in cluster ${cluster.id}`);
  return flag;
}

/** Why the candidate cannot be stored: another flag writes its ConfigMap key, or has its key. */
export function conflictOf(cluster: ConnectedCluster, candidate: FeatureFlagResource): string | undefined {
  const namespaceFlags = cluster.flags.list(candidate.metadata.namespace);
  return configMapConflict(candidate, namespaceFlags) ?? evaluationKeyConflict(candidate, namespaceFlags);
}

function refuseConflicts(cluster: ConnectedCluster, candidate: FeatureFlagResource): void {
  const conflict = conflictOf(cluster, candidate);
  if (conflict !== undefined) throw new HttpError(409, conflict);
}

function preview(
  scope: DeliveryScope,
  cluster: ConnectedCluster,
  candidate: FeatureFlagResource,
  previous?: FeatureFlagResource,
) {
  const namespace = candidate.metadata.namespace;
  return previewFlag({
    candidate,
    ...(previous === undefined ? {} : { previous }),
    workloads: workloadsOf(cluster, namespace),
    namespaceFlags: cluster.flags.list(namespace),
    cluster: deliveryCluster(cluster),
    scope,
  });
}

/** GET /api/v1/flags: flags of every cluster (or one), by cluster, namespace and name; paged with limit. */
function listFlags(app: FastifyInstance, ctx: ApiContext): void {
  app.get<{ Querystring: Type.Static<typeof FlagListQuery> }>(
    "/api/v1/flags",
    {
      schema: {
        summary: "Flags of every cluster (or one), by cluster, namespace and name; paged with limit",
        querystring: FlagListQuery,
        response: { 200: Type.Union([Type.Array(FlagView), FlagList]) },
      },
    },
    async (request, reply) => {
      const { clusterId } = request.query;
      const paging = listPaging("flags", request.query, FLAG_KEY);
      const clusters = clusterId === undefined ? registry(ctx).list() : [await readyCluster(ctx, clusterId)];
      // Across clusters, one that is down is left out and named, never waited for.
      const ready = clusters.filter(
        (cluster) => clusterId !== undefined || cluster.health().state === "ready",
      );
      const missing = clusters.filter((cluster) => !ready.includes(cluster)).map((cluster) => cluster.id);
      if (missing.length > 0) void reply.header("x-svc-unavailable-clusters", missing.join(","));
      const readable = readFilter(ctx, request);
      const visible = ready.filter((cluster) => readable(cluster.id));
      return sendList(request, reply, flagListJson(visible, request.query, paging, readable));
    },
  );
}

/** POST /api/v1/flags: create a flag in a cluster (admin, editor); ?dryRun=true previews it. */
function createFlagRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.post<{ Body: FlagCreateBody; Querystring: Type.Static<typeof CreateQuery> }>(
    "/api/v1/flags",
    {
      schema: {
        summary: "Create a flag in a cluster (admin, editor); ?dryRun=true previews it",
        querystring: CreateQuery,
        body: FlagCreateBody,
        response: { 200: FlagPreview, 201: FlagView },
      },
    },
    async (request, reply) => {
      const body = valid(validateFlagCreate(request.body));
      request.auditNote = { namespace: body.namespace, cluster: body.clusterId };
      requireScopes(ctx, request, [{ clusterId: body.clusterId, namespace: body.namespace }]);
      const cluster = await readyCluster(ctx, body.clusterId, 400);
      const candidate = flagResource(body);
      await requireNamespace(cluster, body.namespace);
      guardDirectWrite(request, cluster, "create", body, request.query.dryRun === "true");
      refuseConflicts(cluster, candidate);
      await refuseUndeliverable(ctx, cluster, [candidate]);
      if (request.query.dryRun === "true") {
        request.auditNote.skip = true;
        return {
          flag: flagView(candidate, cluster.id),
          preview: preview(deliveryScope(ctx, cluster, body.namespace), cluster, candidate),
        };
      }
      const created = await createFlag(cluster, candidate, request.actor?.username);
      request.auditNote.details = changedFields({}, flagAuditFields(created));
      request.flagsWritten = [writtenFlag(created)];
      return reply.code(201).send(flagView(created, cluster.id));
    },
  );
}

/** GET /api/v1/flags/:namespace/:name: one flag. */
function getFlag(app: FastifyInstance, ctx: ApiContext): void {
  app.get<{ Params: Params; Querystring: Type.Static<typeof ClusterQuery> }>(
    "/api/v1/flags/:namespace/:name",
    {
      schema: {
        summary: "One flag",
        params: FlagParams,
        querystring: ClusterQuery,
        response: { 200: FlagView },
      },
    },
    async (request) => {
      const cluster = await readyCluster(ctx, request.query.clusterId);
      return flagView(existingFlag(cluster, request.params), cluster.id);
    },
  );
}

/** PUT /api/v1/flags/:namespace/:name: replace a flag's definition (admin, editor); a stale resourceVersion is 409. */
function replaceFlagRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.put<{ Params: Params; Querystring: Type.Static<typeof WriteQuery>; Body: FlagUpdateBody }>(
    "/api/v1/flags/:namespace/:name",
    {
      schema: {
        summary: "Replace a flag's definition (admin, editor); a stale resourceVersion is 409",
        params: FlagParams,
        querystring: WriteQuery,
        body: FlagUpdateBody,
        response: { 200: Type.Union([FlagView, FlagPreview]) },
      },
    },
    async (request) => {
      const { clusterId, dryRun } = request.query;
      const body = valid(validateFlagUpdate(request.body, { ...request.params, clusterId }));
      const cluster = await readyCluster(ctx, clusterId);
      const current = existingFlag(cluster, request.params);
      guardDirectWrite(request, cluster, "update", request.params, dryRun === "true");
      const wanted: FeatureFlagResource = { ...current, spec: flagUpdate(current, body) };
      refuseConflicts(cluster, wanted);
      await refuseUndeliverable(ctx, cluster, [wanted]);
      if (dryRun === "true") {
        request.auditNote = { skip: true };
        return {
          flag: flagView(wanted, cluster.id),
          preview: preview(deliveryScope(ctx, cluster, wanted.metadata.namespace), cluster, wanted, current),
        };
      }
      const replaced = await replaceFlag(
        cluster,
        current,
        (base) => flagUpdate(base, body),
        body.resourceVersion,
        request.actor?.username,
      );
      request.auditNote = { details: changedFields(flagAuditFields(current), flagAuditFields(replaced)) };
      request.flagsWritten = [writtenFlag(replaced, current)];
      return flagView(replaced, cluster.id);
    },
  );
}

/** POST /api/v1/flags/:namespace/:name/toggle: flip a flag's enabled state, or set it with {enabled} (admin, editor). */
function toggleFlag(app: FastifyInstance, ctx: ApiContext): void {
  app.post<{ Params: Params; Querystring: Type.Static<typeof ClusterQuery>; Body: FlagToggleBody }>(
    "/api/v1/flags/:namespace/:name/toggle",
    {
      schema: {
        summary: "Flip a flag's enabled state, or set it with {enabled} (admin, editor)",
        params: FlagParams,
        querystring: ClusterQuery,
        body: FlagToggleBody,
        response: { 200: FlagView },
      },
    },
    async (request) => {
      const cluster = await readyCluster(ctx, request.query.clusterId);
      const current = existingFlag(cluster, request.params);
      guardDirectWrite(request, cluster, "toggle", request.params);
      const wanted = request.body.enabled;
      const username = request.actor?.username;
      // Setting a state is one idempotent patch; a flip reads the newest state and retries on races.
      const toggled =
        wanted === undefined
          ? await replaceFlag(cluster, current, (base) => flagToggle(base), undefined, username)
          : await setFlagEnabled(
              cluster,
              current.metadata.namespace,
              current.metadata.name,
              wanted,
              username,
            );
      request.auditNote = {
        details: changedFields({ enabled: isEnabled(current.spec) }, { enabled: isEnabled(toggled.spec) }),
      };
      request.flagsWritten = [writtenFlag(toggled, current)];
      return flagView(toggled, cluster.id);
    },
  );
}

/** DELETE /api/v1/flags/:namespace/:name: delete a flag (admin); the operator withdraws what it delivered. */
function deleteFlagRoute(app: FastifyInstance, ctx: ApiContext): void {
  app.delete<{ Params: Params; Querystring: Type.Static<typeof ClusterQuery> }>(
    "/api/v1/flags/:namespace/:name",
    {
      schema: {
        summary: "Delete a flag (admin); the operator withdraws what it delivered",
        params: FlagParams,
        querystring: ClusterQuery,
        response: { 200: MessageBody },
      },
    },
    async (request) => {
      const cluster = await readyCluster(ctx, request.query.clusterId);
      const current = existingFlag(cluster, request.params);
      guardDirectWrite(request, cluster, "delete", request.params);
      await deleteFlag(cluster, current.metadata.namespace, current.metadata.name);
      request.auditNote = { details: changedFields(flagAuditFields(current), {}) };
      request.flagsWritten = [writtenFlag(current)];
      return { message: `flag ${current.metadata.namespace}/${current.metadata.name} deleted` };
    },
  );
}

export function flagRoutes(ctx: ApiContext) {
  return (app: FastifyInstance, _options: unknown, done: () => void) => {
    for (const route of [listFlags, createFlagRoute, getFlag, replaceFlagRoute, toggleFlag, deleteFlagRoute])
      route(app, ctx);
    done();
  };
}
