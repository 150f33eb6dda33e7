import { randomBytes, randomUUID } from "node:crypto";
import {
  CreatedWebhook,
  WebhookBody,
  WebhookDeliveryPage,
  WebhookTestResult,
  WebhookUpdateBody,
  WebhookView,
} from "@svc/core";
import type { FastifyInstance } from "fastify";
import Type from "typebox";
import { changedFields } from "../audit/event.ts";
import { auditEventOf } from "../audit/recorder.ts";
import type { ApiContext } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { MessageBody } from "../http/schemas.ts";
import { isoTime } from "../time.ts";
import { resolveAllowed } from "./address.ts";
import { eventsOfAudit, TEST_EVENT, type WebhookEvent } from "./events.ts";
import { bodyOf, headersOf } from "./payload.ts";
import { DeliveriesQuery, WebhookParams } from "./schemas.ts";
import { sendAttempt } from "./sender.ts";
import type { Webhook, WebhookFields } from "./store.ts";
import { allowedNetworks } from "./worker.ts";

type Params = Type.Static<typeof WebhookParams>;

/** Why `url` cannot be a webhook's: its form, or where it resolves (SSRF); names the field. */
async function urlProblem(ctx: ApiContext, url: string): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "url: is not a URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return "url: must be http:// or https://";
  // Credentials in a URL end up wherever URLs are shown; the signature authenticates svc instead.
  if (parsed.username !== "" || parsed.password !== "") return "url: must not carry a user or password";
  const resolved = await resolveAllowed(parsed.hostname, allowedNetworks(ctx.config.webhooks));
  return resolved.ok ? undefined : `url: ${resolved.error}`;
}

/** The fields a body asks for; `enabled` absent keeps `current` (true for a new webhook). */
async function checkedFields(ctx: ApiContext, body: WebhookBody, current = true): Promise<WebhookFields> {
  const problem = await urlProblem(ctx, body.url);
  if (problem !== undefined) throw new HttpError(400, problem);
  return {
    name: body.name,
    url: body.url,
    events: body.events,
    clusters: body.clusters ?? [],
    namespaces: body.namespaces ?? [],
    format: body.format ?? "json",
    enabled: body.enabled ?? current,
  };
}

/** What the audit log shows of a webhook: never its secret, and of its URL only the origin (a Slack URL's path is a secret). */
function auditFields(webhook: WebhookFields): Record<string, unknown> {
  const { name, events, clusters, namespaces, format, enabled } = webhook;
  return { name, url: new URL(webhook.url).origin, events, clusters, namespaces, format, enabled };
}

async function existing(ctx: ApiContext, id: string): Promise<Webhook> {
  const webhook = await ctx.webhooks.get(id);
  if (webhook === undefined) throw new HttpError(404, `webhook ${id} not found`);
  return webhook;
}

/**
 * Flag writes through the API become webhook events from the audit event of their request and
 * the objects written, enqueued before the answer leaves: a client that got its answer has its
 * event in the outbox, which survives a restart. Only rows are written here; sending is the
 * worker's. The same change seen in the caches later has the same id (events.ts): no second row.
 */
export function installWebhookEvents(app: FastifyInstance, ctx: ApiContext): void {
  app.decorateRequest("flagsWritten", undefined);
  app.addHook("onSend", async (request, reply, payload) => {
    const audited = auditEventOf(request, reply.statusCode, ctx.now());
    const events = audited === undefined ? [] : eventsOfAudit(audited, request.flagsWritten ?? []);
    try {
      await ctx.webhooks.enqueue(events, isoTime(ctx.now()));
    } catch (error) {
      const ids = events.map((event) => event.id);
      request.log.error({ err: error, events: ids }, "could not enqueue the webhook events");
    }
    return payload;
  });
}

/** GET /api/v1/webhooks: every webhook (admin). */
function listWebhooks(app: FastifyInstance, ctx: ApiContext): void {
  app.get(
    "/api/v1/webhooks",
    { schema: { summary: "Every webhook (admin)", response: { 200: Type.Array(WebhookView) } } },
    () => ctx.webhooks.list(),
  );
}

/** POST /api/v1/webhooks: create a webhook (admin); the answer shows its secret, once. */
function createWebhook(app: FastifyInstance, ctx: ApiContext): void {
  app.post<{ Body: WebhookBody }>(
    "/api/v1/webhooks",
    {
      schema: {
        summary: "Create a webhook (admin); the answer shows its secret, once",
        body: WebhookBody,
        response: { 201: CreatedWebhook },
      },
    },
    async (request, reply) => {
      const fields = await checkedFields(ctx, request.body);
      const secret = request.body.secret ?? `whsec_${randomBytes(32).toString("hex")}`;
      const webhook = await ctx.webhooks.create(randomUUID(), fields, secret, isoTime(ctx.now()));
      request.auditNote = { resourceName: webhook.id, details: changedFields({}, auditFields(fields)) };
      return reply.code(201).send({ ...webhook, secret });
    },
  );
}

/** GET /api/v1/webhooks/:id: one webhook (admin). */
function getWebhook(app: FastifyInstance, ctx: ApiContext): void {
  app.get<{ Params: Params }>(
    "/api/v1/webhooks/:id",
    { schema: { summary: "One webhook (admin)", params: WebhookParams, response: { 200: WebhookView } } },
    (request) => existing(ctx, request.params.id),
  );
}

/** PUT /api/v1/webhooks/:id: replace a webhook (admin); its secret, and its enabled state, are kept unless given. */
function replaceWebhook(app: FastifyInstance, ctx: ApiContext): void {
  app.put<{ Params: Params; Body: Type.Static<typeof WebhookUpdateBody> }>(
    "/api/v1/webhooks/:id",
    {
      schema: {
        summary: "Replace a webhook (admin); its secret, and its enabled state, are kept unless given",
        params: WebhookParams,
        body: WebhookUpdateBody,
        response: { 200: WebhookView },
      },
    },
    async (request) => {
      const before = await existing(ctx, request.params.id);
      const fields = await checkedFields(ctx, request.body, before.enabled);
      const { secret } = request.body;
      const after = await ctx.webhooks.update(before.id, fields, secret, isoTime(ctx.now()));
      if (after === undefined) throw new HttpError(404, `webhook ${before.id} not found`);
      const diff = changedFields(auditFields(before), auditFields(fields));
      request.auditNote = {
        details: { ...diff, ...(secret === undefined ? {} : { secretChanged: true }) },
      };
      return after;
    },
  );
}

/** DELETE /api/v1/webhooks/:id: delete a webhook and its deliveries (admin). */
function deleteWebhook(app: FastifyInstance, ctx: ApiContext): void {
  app.delete<{ Params: Params }>(
    "/api/v1/webhooks/:id",
    {
      schema: {
        summary: "Delete a webhook and its deliveries (admin)",
        params: WebhookParams,
        response: { 200: MessageBody },
      },
    },
    async (request) => {
      const before = await existing(ctx, request.params.id);
      if (!(await ctx.webhooks.delete(before.id))) throw new HttpError(404, `webhook ${before.id} not found`);
      request.auditNote = { details: changedFields(auditFields(before), {}) };
      return { message: `webhook ${before.id} deleted` };
    },
  );
}

/** POST /api/v1/webhooks/:id/test: send a signed test event now and tell how the receiver answered (admin). */
function testWebhook(app: FastifyInstance, ctx: ApiContext): void {
  app.post<{ Params: Params }>(
    "/api/v1/webhooks/:id/test",
    {
      schema: {
        summary: "Send a signed test event now and tell how the receiver answered (admin)",
        params: WebhookParams,
        response: { 200: WebhookTestResult },
      },
    },
    async (request) => {
      const webhook = await existing(ctx, request.params.id);
      const secret = await ctx.webhooks.secretOf(webhook.id);
      if (secret === undefined) throw new HttpError(404, `webhook ${webhook.id} not found`);
      const event: WebhookEvent = {
        id: `${TEST_EVENT}/${randomUUID()}`,
        type: TEST_EVENT,
        occurredAt: isoTime(ctx.now()),
        cluster: "",
        namespace: "",
        name: webhook.name,
        actor: request.actor?.username ?? "",
        details: {},
      };
      const body = bodyOf(event, webhook.format);
      const started = performance.now();
      const outcome = await sendAttempt(webhook.url, body, headersOf(event, body, secret, ctx.now()), {
        timeoutMs: ctx.config.webhooks.timeoutMs,
        allowed: allowedNetworks(ctx.config.webhooks),
      });
      request.auditNote = { details: { ok: outcome.ok, status: outcome.status } };
      return { ...outcome, durationMs: Math.round(performance.now() - started) };
    },
  );
}

/** GET /api/v1/webhooks/:id/deliveries: a webhook's delivery log, newest first, paged by beforeId (admin). */
function listDeliveries(app: FastifyInstance, ctx: ApiContext): void {
  app.get<{ Params: Params; Querystring: Type.Static<typeof DeliveriesQuery> }>(
    "/api/v1/webhooks/:id/deliveries",
    {
      schema: {
        summary: "A webhook's delivery log, newest first, paged by beforeId (admin)",
        params: WebhookParams,
        querystring: DeliveriesQuery,
        response: { 200: WebhookDeliveryPage },
      },
    },
    async (request) => {
      const webhook = await existing(ctx, request.params.id);
      const limit = Number(request.query.limit ?? 50);
      if (limit < 1 || limit > 200) throw new HttpError(400, "query.limit: must be between 1 and 200");
      const beforeId = request.query.beforeId === undefined ? undefined : Number(request.query.beforeId);
      // One more than asked says whether a next page exists.
      const rows = await ctx.webhooks.deliveries(webhook.id, limit + 1, beforeId);
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      return rows.length > limit && last !== undefined ? { items, nextBeforeId: last.id } : { items };
    },
  );
}

export function webhookRoutes(ctx: ApiContext) {
  return (app: FastifyInstance, _options: unknown, done: () => void) => {
    for (const route of [
      listWebhooks,
      createWebhook,
      getWebhook,
      replaceWebhook,
      deleteWebhook,
      testWebhook,
      listDeliveries,
    ])
      route(app, ctx);
    done();
  };
}
