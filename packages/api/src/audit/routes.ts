import { describeErrors } from "@svc/core";
import type { FastifyInstance } from "fastify";
import Type from "typebox";
import { auditCsv } from "./csv.ts";
import { AuditEvent } from "./event.ts";
import { AuditQueryString, parseAuditQuery } from "./query.ts";
import type { ApiContext } from "../context.ts";
import { HttpError } from "../http/errors.ts";

/** CSV export is chosen by content negotiation: an Accept header naming text/csv. */
export function wantsCsv(accept: string | undefined): boolean {
  return accept !== undefined && /(^|,)\s*text\/csv\s*(;|,|$)/i.test(accept);
}

export function auditRoutes(ctx: ApiContext) {
  return (app: FastifyInstance, _options: unknown, done: () => void) => {
    app.get<{ Querystring: AuditQueryString }>(
      "/api/v1/audit",
      {
        schema: {
          summary: "Audit events, newest first; CSV with 'Accept: text/csv'",
          querystring: AuditQueryString,
          response: { 200: Type.Array(AuditEvent) },
        },
      },
      async (request, reply) => {
        const query = parseAuditQuery(request.query);
        if (!query.ok) throw new HttpError(400, describeErrors(query.errors));
        const events = await ctx.audit.list(query.value);
        if (wantsCsv(request.headers.accept)) {
          return reply
            .type("text/csv; charset=utf-8")
            .header("content-disposition", 'attachment; filename="audit.csv"')
            .serializer((payload: unknown) => String(payload))
            .send(auditCsv(events));
        }
        return events;
      },
    );
    done();
  };
}
