import {
  DiscoveredWorkload,
  deliveryCluster,
  visibleNamespaces,
  WORKLOAD_KINDS,
  WorkloadDetail,
  workloadDetail,
} from "@svc/core";
import type { ConnectedCluster } from "@svc/kube";
import type { FastifyInstance } from "fastify";
import Type from "typebox";
import { readyCluster } from "../clusters/reach.ts";
import type { ApiContext } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { listPaging, sendList } from "../http/list-reply.ts";
import { WORKLOAD_KEY, WorkloadList, WorkloadListQuery, workloadListJson } from "./list.ts";
import { deliveryScope } from "../flags/guardrails.ts";
import { envReader } from "./literal-values.ts";
import { workloadsOf } from "./read.ts";
import { readFilter } from "../http/scope.ts";

const ClusterParams = Type.Object({ id: Type.String({ maxLength: 63 }) }, { additionalProperties: false });
const WorkloadParams = Type.Object(
  {
    id: Type.String({ maxLength: 63 }),
    namespace: Type.String({ maxLength: 253 }),
    name: Type.String({ maxLength: 253 }),
  },
  { additionalProperties: false },
);
const DetailQuery = Type.Object(
  { kind: Type.Optional(Type.Enum([...WORKLOAD_KINDS], { description: "Needed only when names collide." })) },
  { additionalProperties: false },
);

/** The namespaces users see in a cluster (DESIGN.md §4 Workloads). */
function namespacesOf(ctx: ApiContext, cluster: ConnectedCluster): string[] {
  const names = cluster.namespaces.list().map((namespace) => namespace.metadata?.name ?? "");
  return visibleNamespaces(names, cluster.connection?.spec.namespaces, ctx.config.systemNamespace);
}

/** GET /api/v1/clusters/:id/namespaces: namespaces of a cluster that svc manages (system namespaces excluded). */
function listNamespaces(app: FastifyInstance, ctx: ApiContext): void {
  app.get<{ Params: Type.Static<typeof ClusterParams> }>(
    "/api/v1/clusters/:id/namespaces",
    {
      schema: {
        summary: "Namespaces of a cluster that svc manages (system namespaces excluded)",
        params: ClusterParams,
        response: { 200: Type.Array(Type.String()) },
      },
    },
    async (request) => {
      const cluster = await readyCluster(ctx, request.params.id);
      const readable = readFilter(ctx, request);
      return namespacesOf(ctx, cluster).filter((namespace) => readable(cluster.id, namespace));
    },
  );
}

/** GET /api/v1/clusters/:id/workloads: a cluster's Deployments, StatefulSets and DaemonSets, with their flags; paged with limit. */
function listWorkloads(app: FastifyInstance, ctx: ApiContext): void {
  app.get<{
    Params: Type.Static<typeof ClusterParams>;
    Querystring: Type.Static<typeof WorkloadListQuery>;
  }>(
    "/api/v1/clusters/:id/workloads",
    {
      schema: {
        summary:
          "Deployments, StatefulSets and DaemonSets of a cluster, with the flags they carry; paged with limit",
        params: ClusterParams,
        querystring: WorkloadListQuery,
        response: { 200: Type.Union([Type.Array(DiscoveredWorkload), WorkloadList]) },
      },
    },
    async (request, reply) => {
      const paging = listPaging("workloads", { ...request.query, cluster: request.params.id }, WORKLOAD_KEY);
      const cluster = await readyCluster(ctx, request.params.id);
      const readable = readFilter(ctx, request);
      const visible = new Set(
        namespacesOf(ctx, cluster).filter((namespace) => readable(cluster.id, namespace)),
      );
      return sendList(
        request,
        reply,
        workloadListJson(
          cluster,
          visible,
          request.query,
          paging,
          (namespace) => envReader(ctx, request, cluster.id, namespace),
          (namespace) => deliveryScope(ctx, cluster, namespace),
        ),
      );
    },
  );
}

/** GET /api/v1/clusters/:id/workloads/:namespace/:name: one workload, with the flags whose selectors match it. */
function getWorkload(app: FastifyInstance, ctx: ApiContext): void {
  app.get<{ Params: Type.Static<typeof WorkloadParams>; Querystring: Type.Static<typeof DetailQuery> }>(
    "/api/v1/clusters/:id/workloads/:namespace/:name",
    {
      schema: {
        summary: "One workload, with the flags whose selectors match it",
        params: WorkloadParams,
        querystring: DetailQuery,
        response: { 200: WorkloadDetail },
      },
    },
    async (request) => {
      const { id, namespace, name } = request.params;
      const cluster = await readyCluster(ctx, id);
      const named = workloadsOf(cluster, namespace).filter(
        (workload) =>
          workload.object.metadata?.name === name &&
          (request.query.kind === undefined || workload.kind === request.query.kind),
      );
      const [workload, ...others] = named;
      if (workload === undefined) {
        throw new HttpError(404, `workload ${namespace}/${name} not found in cluster ${cluster.id}`);
      }
      if (others.length > 0) {
        const kinds = named.map((w) => w.kind).join(", ");
        throw new HttpError(400, `kind: ${namespace}/${name} names several workloads (${kinds}): add ?kind=`);
      }
      const reader = envReader(ctx, request, cluster.id, namespace);
      const flags = cluster.flags.list(namespace);
      const scope = deliveryScope(ctx, cluster, namespace);
      return workloadDetail(deliveryCluster(cluster), workload, flags, reader, scope);
    },
  );
}

export function workloadRoutes(ctx: ApiContext) {
  return (app: FastifyInstance, _options: unknown, done: () => void) => {
    for (const route of [listNamespaces, listWorkloads, getWorkload]) route(app, ctx);
    done();
  };
}
