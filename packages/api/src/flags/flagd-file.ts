import {
  Delivery,
  exportFlagdFile,
  flagResource,
  importFlagdFile,
  type FeatureFlagResource,
} from "@svc/core";
import type { ConnectedCluster } from "@svc/kube";
import type { FastifyInstance } from "fastify";
import Type from "typebox";
import { changedFields } from "../audit/event.ts";
import { readyCluster } from "../clusters/reach.ts";
import type { ApiContext } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { writtenFlag } from "../webhooks/events.ts";
import { flagAuditFields } from "./audit-fields.ts";
import { guardDirectWrite } from "./protected-writes.ts";
import { refuseUndeliverable, requireNamespace } from "./guardrails.ts";
import { conflictOf, valid } from "./routes.ts";
import { createFlag, deleteFlag } from "./writes.ts";

/**
 * Import and export of flagd flag-definition files (docs/api-flags-clusters.md, "Import and
 * export"). An import is all or nothing: every flag is checked before the first is written, and
 * a write that fails midway deletes what this import created.
 */

const NamespaceQuery = Type.Object(
  {
    clusterId: Type.String({ maxLength: 63, description: "The cluster that holds the flags." }),
    namespace: Type.String({ maxLength: 63, description: "The namespace of the flags." }),
  },
  { additionalProperties: false },
);
type NamespaceQuery = Type.Static<typeof NamespaceQuery>;

const FlagdFileSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    flags: Type.Record(Type.String(), Type.Unknown()),
    $evaluators: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { description: "A flagd flag-definition file (https://flagd.dev/schema/v0/flags.json)." },
);

const ImportBody = Type.Object(
  {
    delivery: Delivery,
    file: Type.Unknown({ description: "The flagd file; checked flag by flag, every problem listed." }),
    dryRun: Type.Optional(Type.Boolean({ description: "true: check and list, write nothing." })),
  },
  { additionalProperties: false },
);

const ImportResult = Type.Object({
  flags: Type.Array(Type.Object({ name: Type.String(), key: Type.String() })),
  dryRun: Type.Boolean(),
});

/** The candidates, refused as a whole when one of them clashes with a flag of the namespace. */
function refuseClashes(cluster: ConnectedCluster, candidates: readonly FeatureFlagResource[]): void {
  const problems = candidates.flatMap((candidate) => {
    const { namespace, name } = candidate.metadata;
    if (cluster.flags.get(namespace, name) !== undefined) return [`flag ${namespace}/${name} already exists`];
    return conflictOf(cluster, candidate) ?? [];
  });
  if (problems.length > 0) throw new HttpError(409, `nothing imported: ${problems.join("; ")}`);
}

/** Creates every candidate, or none: a failed write deletes the flags created before it. */
async function createAll(cluster: ConnectedCluster, candidates: readonly FeatureFlagResource[]) {
  const created: FeatureFlagResource[] = [];
  for (const candidate of candidates) {
    try {
      created.push(await createFlag(cluster, candidate));
    } catch (error) {
      const undone = await Promise.allSettled(
        created.map((flag) => deleteFlag(cluster, flag.metadata.namespace, flag.metadata.name)),
      );
      const left = created.filter((_, i) => undone[i]?.status === "rejected").map((f) => f.metadata.name);
      const why = error instanceof Error ? error.message : String(error);
      const status = error instanceof HttpError ? error.statusCode : 502;
      throw new HttpError(
        status,
        `import stopped at flag ${candidate.metadata.name}: ${why}; the ${created.length} flags created before it were deleted` +
          (left.length > 0 ? `, except ${left.join(", ")} (delete them by hand)` : ""),
      );
    }
  }
  return created;
}

export function flagdFileRoutes(ctx: ApiContext) {
  return (app: FastifyInstance, _options: unknown, done: () => void) => {
    app.post<{ Querystring: NamespaceQuery; Body: Type.Static<typeof ImportBody> }>(
      "/api/v1/flags/import",
      {
        schema: {
          summary: "Create the flags of a flagd file in a namespace, all or none (admin, editor)",
          querystring: NamespaceQuery,
          body: ImportBody,
          response: { 200: ImportResult, 201: ImportResult },
        },
      },
      async (request, reply) => {
        const { clusterId, namespace } = request.query;
        const { delivery, file, dryRun = false } = request.body;
        request.auditNote = { namespace, cluster: clusterId, resourceName: "" };
        const flags = valid(importFlagdFile(file, { delivery, prefix: "file" }));
        const cluster = await readyCluster(ctx, clusterId, 400);
        await requireNamespace(cluster, namespace);
        guardDirectWrite(request, cluster, "import", { namespace }, dryRun);
        const candidates = flags.map(({ name, spec }) => flagResource({ ...spec, name, namespace }));
        refuseClashes(cluster, candidates);
        await refuseUndeliverable(ctx, cluster, candidates);
        // The file's own flags were checked against each other by the import (distinct names);
        // their keys are distinct because a file's keys are.
        const result = (list: readonly FeatureFlagResource[]) => ({
          flags: list.map((f) => ({ name: f.metadata.name, key: f.spec.key ?? f.metadata.name })),
          dryRun,
        });
        if (dryRun) {
          request.auditNote.skip = true;
          return result(candidates);
        }
        const created = await createAll(cluster, candidates);
        request.auditNote.resourceName = created
          .map((f) => f.metadata.name)
          .join(",")
          .slice(0, 253);
        request.auditNote.details = { imported: created.map((f) => f.metadata.name) };
        // One webhook event per flag, each with its own definition (and the id its cache event has).
        request.flagsWritten = created.map((f) =>
          writtenFlag(f, undefined, changedFields({}, flagAuditFields(f))),
        );
        return reply.code(201).send(result(created));
      },
    );

    app.get<{ Querystring: NamespaceQuery }>(
      "/api/v1/flags/export",
      {
        schema: {
          summary: "The flags of a namespace as a flagd file, which flagd loads unchanged",
          querystring: NamespaceQuery,
          response: { 200: FlagdFileSchema },
        },
      },
      async (request) => {
        const { clusterId, namespace } = request.query;
        const cluster = await readyCluster(ctx, clusterId);
        const flags = cluster.flags.list(namespace).map((f) => ({ name: f.metadata.name, spec: f.spec }));
        return exportFlagdFile(flags);
      },
    );
    done();
  };
}
