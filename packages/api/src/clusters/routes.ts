import {
  ClusterRegistrationBody,
  ClusterView,
  clusterConnectionFromRegistration,
  describeErrors,
  validateClusterRegistration,
} from "@svc/core";
import type { FastifyInstance } from "fastify";
import Type from "typebox";
import { changedFields } from "../audit/event.ts";
import type { ApiContext } from "../context.ts";
import { readFilter } from "../http/scope.ts";
import { HttpError } from "../http/errors.ts";
import { MessageBody } from "../http/schemas.ts";
import { knownCluster, registry } from "./reach.ts";
import { checkCredentialRef, registerCluster, unregisterCluster } from "./registration.ts";
import { clusterViewOf } from "./view.ts";

const ClusterParams = Type.Object({ id: Type.String({ maxLength: 63 }) }, { additionalProperties: false });

/**
 * The fields of a cluster an audit reader sees change: never a credential, but the Secret
 * named and every weakening of its transport (insecure, with its reason; trustSystemCAs).
 */
function auditFields(cluster: ClusterRegistrationBody): Record<string, unknown> {
  const { id, displayName, apiServer, authMethod, namespaces, resyncPeriod, labels } = cluster;
  const { credentialRef, insecure, trustSystemCAs } = cluster;
  return {
    id,
    displayName,
    apiServer,
    authMethod,
    namespaces,
    resyncPeriod,
    labels,
    credentialRef,
    insecure,
    trustSystemCAs,
  };
}

export function clusterRoutes(ctx: ApiContext) {
  return (app: FastifyInstance, _options: unknown, done: () => void) => {
    app.get(
      "/api/v1/clusters",
      {
        schema: { summary: "Every cluster, the local one first", response: { 200: Type.Array(ClusterView) } },
      },
      (request) => {
        // A user with grants only sees the clusters they hold a grant in.
        const readable = readFilter(ctx, request);
        return registry(ctx)
          .list()
          .filter((cluster) => readable(cluster.id))
          .map((cluster) => clusterViewOf(ctx, cluster));
      },
    );

    app.post<{ Body: ClusterRegistrationBody }>(
      "/api/v1/clusters",
      {
        schema: {
          summary: "Register a cluster (admin); inline credentials are kept in a Secret, never returned",
          body: ClusterRegistrationBody,
          response: { 201: ClusterView },
        },
      },
      async (request, reply) => {
        const checked = validateClusterRegistration(request.body);
        if (!checked.ok) throw new HttpError(400, describeErrors(checked.errors));
        const body = checked.value;
        if (registry(ctx).get(body.id) !== undefined) {
          throw new HttpError(409, `cluster ${body.id} is already registered`);
        }
        await checkCredentialRef(ctx, body.id, body.credentialRef);
        const cluster = await registerCluster(
          ctx,
          clusterConnectionFromRegistration(body, ctx.config.systemNamespace),
          request.log,
        );
        request.auditNote = { details: changedFields({}, auditFields(body)) };
        return reply.code(201).send(clusterViewOf(ctx, cluster));
      },
    );

    app.get<{ Params: Type.Static<typeof ClusterParams> }>(
      "/api/v1/clusters/:id",
      { schema: { summary: "One cluster", params: ClusterParams, response: { 200: ClusterView } } },
      (request) => clusterViewOf(ctx, knownCluster(ctx, request.params.id, 404)),
    );

    app.delete<{ Params: Type.Static<typeof ClusterParams> }>(
      "/api/v1/clusters/:id",
      {
        schema: {
          summary: "Stop managing a cluster (admin); its FeatureFlags stay in place",
          params: ClusterParams,
          response: { 200: MessageBody },
        },
      },
      async (request) => {
        const cluster = knownCluster(ctx, request.params.id, 404);
        if (cluster.local)
          throw new HttpError(400, `cluster ${cluster.id} is the local cluster and cannot be removed`);
        await unregisterCluster(ctx, cluster, request.log);
        request.auditNote = { cluster: cluster.id, details: changedFields({ id: cluster.id }, {}) };
        return { message: `cluster ${cluster.id} removed; its FeatureFlags were left in place` };
      },
    );
    done();
  };
}
