import {
  compileFlag,
  evaluateFlag,
  EVALUATION_ERROR_CODES,
  EVALUATION_REASONS,
  type Evaluation,
} from "@svc/core/targeting/flagd";
import { definitionFields, evaluationKey, specPart, withSpecRules, type FeatureFlagSpec } from "@svc/core";
import { contextProblem } from "@svc/core/targeting/evaluation-context";
import { ruleCostProblem } from "@svc/core/targeting/targeting-cost";
import type { FastifyInstance } from "fastify";
import Type from "typebox";
import { readyCluster } from "../clusters/reach.ts";
import type { ApiContext } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { ClusterQuery, existingFlag, FlagParams, valid } from "./routes.ts";

/**
 * What a flag answers for an evaluation context, by the engine the sidecar and the operator use
 * (flagd-core through @svc/core/targeting/flagd), in OFREP's shape: a stored flag, or an unsaved draft
 * (the dashboard's "try a context"). Read-only: any role may evaluate.
 */

const Context = Type.Record(Type.String({ maxLength: 256 }), Type.Unknown(), {
  description: "The evaluation context: targetingKey and attributes, as an OpenFeature SDK sends them.",
});

const EvaluateBody = Type.Object({ context: Type.Optional(Context) }, { additionalProperties: false });

const DraftBody = Type.Object(
  {
    flag: Type.Object(
      {
        name: Type.Optional(Type.String({ maxLength: 63 })),
        namespace: Type.Optional(Type.String({ maxLength: 63 })),
        clusterId: Type.Optional(Type.String({ maxLength: 63 })),
        ...definitionFields,
      },
      {
        additionalProperties: false,
        description: "A flag body as for create; name, namespace and clusterId optional.",
      },
    ),
    context: Type.Optional(Context),
  },
  { additionalProperties: false },
);

export const EvaluationView = Type.Object(
  {
    key: Type.String(),
    value: Type.Optional(Type.Unknown()),
    variant: Type.Optional(Type.String()),
    reason: Type.Enum([...EVALUATION_REASONS]),
    errorCode: Type.Optional(Type.Enum([...EVALUATION_ERROR_CODES])),
    errorDetails: Type.Optional(Type.String()),
    metadata: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
  },
  { description: "OFREP's evaluation: a value and variant with a reason, or an errorCode." },
);

/**
 * The evaluation, bounded: a context past the sidecar's bounds is a 400, and a stored rule past
 * the bounds of what a rule may cost (applied with kubectl: the API refuses to write one) answers
 * GENERAL, as the sidecar does, without being expanded or evaluated.
 */
function evaluate(
  name: string,
  spec: FeatureFlagSpec,
  context: Record<string, unknown> | undefined,
): Evaluation {
  const problem = context === undefined ? undefined : contextProblem(context);
  if (problem !== undefined) throw new HttpError(400, problem);
  const key = evaluationKey({ metadata: { name, namespace: "" }, spec });
  const cost = ruleCostProblem(spec.targeting, spec.evaluators);
  if (cost !== undefined) {
    const errorDetails = `${cost.field} ${cost.message}; the flag's rules are not evaluated`;
    return { key, reason: "ERROR", errorCode: "GENERAL", errorDetails, metadata: {} };
  }
  return evaluateFlag(
    key,
    compileFlag(key, spec, false),
    (context ?? {}) as Parameters<typeof evaluateFlag>[2],
  );
}

export function evaluateRoutes(ctx: ApiContext) {
  return (app: FastifyInstance, _options: unknown, done: () => void) => {
    app.post<{
      Params: Type.Static<typeof FlagParams>;
      Querystring: Type.Static<typeof ClusterQuery>;
      Body: Type.Static<typeof EvaluateBody>;
    }>(
      "/api/v1/flags/:namespace/:name/evaluate",
      {
        schema: {
          summary: "What a stored flag answers for a context (any role; the sidecar's engine and answer)",
          params: FlagParams,
          querystring: ClusterQuery,
          body: EvaluateBody,
          response: { 200: EvaluationView },
        },
      },
      async (request) => {
        const cluster = await readyCluster(ctx, request.query.clusterId);
        const flag = existingFlag(cluster, request.params);
        return evaluate(flag.metadata.name, flag.spec, request.body.context);
      },
    );

    app.post<{ Body: Type.Static<typeof DraftBody> }>(
      "/api/v1/flags/evaluate",
      {
        schema: {
          summary: "What an unsaved flag would answer for a context (any role; nothing is stored)",
          body: DraftBody,
          response: { 200: EvaluationView },
        },
      },
      (request, reply) => {
        const draft = valid(withSpecRules(request.body.flag, "flag"));
        return reply.send(evaluate(draft.name ?? "draft", specPart(draft), request.body.context));
      },
    );
    done();
  };
}
