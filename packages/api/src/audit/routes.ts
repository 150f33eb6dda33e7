import { AuditEventView, auditVisibility, describeErrors, type AuditVisibility } from "@svc/core";
import type { FastifyInstance, FastifyRequest } from "fastify";
import Negotiator from "negotiator";
import Type from "typebox";
import { auditCsv } from "./csv.ts";
import { AUDIT_KEY, AuditQueryString, parseAuditQuery, type AuditKey } from "./query.ts";
import type { ApiContext } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { markScopeChecked, principalOf } from "../http/scope.ts";
import { ListOf, listPageJson, listPaging, sendList } from "../http/list-reply.ts";

const AUDIT_MEDIA_TYPES = ["application/json", "text/csv"];

/** What of the log the caller reads: all with a global role, else their grants' clusters (core decides). */
function auditVisibilityOf(ctx: ApiContext, request: FastifyRequest): AuditVisibility {
  const clusters = (ctx.clusters?.list() ?? []).map((c) => ({
    id: c.id,
    labels: c.connection?.spec.labels ?? {},
  }));
  markScopeChecked(request);
  return auditVisibility(principalOf(request), clusters);
}

/**
 * The representation an Accept header asks for, by its q-values and then its order (RFC 9110
 * §12.5.1); JSON when it names neither. Undefined when it refuses both (406).
 */
export function auditMediaType(accept: string | undefined): "application/json" | "text/csv" | undefined {
  const chosen = new Negotiator({ headers: accept === undefined ? {} : { accept } }).mediaType(
    AUDIT_MEDIA_TYPES,
  );
  return chosen === "text/csv" || chosen === "application/json" ? chosen : undefined;
}

export function auditRoutes(ctx: ApiContext) {
  return (app: FastifyInstance, _options: unknown, done: () => void) => {
    app.get<{ Querystring: AuditQueryString }>(
      "/api/v1/audit",
      {
        schema: {
          summary: "Audit events, newest first; CSV with 'Accept: text/csv'; paged with continue",
          querystring: AuditQueryString,
          response: {
            200: Type.Union([Type.Array(AuditEventView), ListOf(AuditEventView)]),
          },
        },
      },
      async (request, reply) => {
        const parsed = parseAuditQuery(request.query);
        if (!parsed.ok) throw new HttpError(400, describeErrors(parsed.errors));
        const query = { ...parsed, value: { ...parsed.value, visibility: auditVisibilityOf(ctx, request) } };
        void reply.header("vary", "accept");
        const mediaType = auditMediaType(request.headers.accept);
        if (mediaType === undefined) {
          throw new HttpError(406, "Accept: the audit log is served as application/json or text/csv");
        }
        if (request.query.continue !== undefined) {
          // Kubernetes' list shape is JSON; a CSV is an export of the newest events at once.
          if (mediaType === "text/csv")
            throw new HttpError(400, "query.continue: pages JSON only, not text/csv");
          const paging = listPaging("audit", request.query, AUDIT_KEY);
          // AUDIT_KEY's shape was checked: a string and a safe integer.
          const page = await ctx.audit.page(query.value, paging.after as AuditKey | undefined);
          const items = page.items.map((event) => JSON.stringify(event));
          return sendList(request, reply, listPageJson(items, page, paging.fingerprint));
        }
        const events = await ctx.audit.list(query.value);
        if (mediaType === "text/csv") {
          return reply
            .type("text/csv; charset=utf-8")
            .header("content-disposition", 'attachment; filename="audit.csv"')
            .serializer((payload: unknown) => String(payload))
            .send(auditCsv(events));
        }
        return sendList(request, reply, JSON.stringify(events));
      },
    );
    done();
  };
}
