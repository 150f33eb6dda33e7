import { setTimeout as sleep } from "node:timers/promises";
import { ROUTE_RULES, ruleFor } from "@svc/core";
import { backoffDelay, type BackoffPolicy } from "@svc/core/backoff";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ApiContext } from "../context.ts";
import { isoTime } from "../time.ts";
import { databaseUnavailable } from "../store/db.ts";
import { outcomeOf, type NewAuditEvent } from "./event.ts";
import { refusedLoginLog } from "./refused-logins.ts";

/** Audit fields are bounded: a name that a client made up never fills the log. */
const NAME_MAX = 253;

function stringField(source: unknown, ...names: string[]): string | undefined {
  if (typeof source !== "object" || source === null) return undefined;
  for (const name of names) {
    const value = (source as Record<string, unknown>)[name];
    if (typeof value === "string") return value.slice(0, NAME_MAX);
  }
  return undefined;
}

/** The audit event of a finished request, or undefined when the route is not audited. */
export function auditEventOf(
  request: FastifyRequest,
  status: number,
  now: number,
): NewAuditEvent | undefined {
  const audit = request.routeKey === undefined ? undefined : ruleFor(ROUTE_RULES, request.routeKey)?.audit;
  if (audit === undefined) return undefined;
  const note = request.auditNote ?? {};
  if (note.skip === true && status < 400) return undefined;
  const isLogin = audit.action === "login";
  // An anonymous request to a mutating route (401) is not recorded, or anyone could flood the
  // log; failed logins are, under the username that was tried.
  if (request.actor === undefined && !isLogin) return undefined;
  const actor = request.actor?.username ?? note.attemptedActor ?? stringField(request.body, "username") ?? "";
  const outcome = outcomeOf(status);
  return {
    timestamp: isoTime(now),
    actor,
    // A user whose access is grants only is recorded as "none", as the users API shows them.
    actorRole: request.actor === undefined ? "" : (request.actor.role ?? "none"),
    action: isLogin && outcome !== "success" ? "login_failed" : audit.action,
    resource: audit.resource,
    resourceName:
      note.resourceName ??
      (audit.resource === "session"
        ? actor
        : (stringField(request.params, "username", "name", "id") ??
          stringField(request.body, "username", "name", "id") ??
          "")),
    namespace:
      note.namespace ??
      stringField(request.params, "namespace") ??
      stringField(request.body, "namespace") ??
      "",
    cluster:
      note.cluster ??
      stringField(request.query, "clusterId") ??
      stringField(request.body, "clusterId") ??
      (audit.resource === "cluster"
        ? (stringField(request.params, "id") ?? stringField(request.body, "id"))
        : undefined) ??
      "",
    outcome,
    sourceIp: request.sourceIp,
    details: {
      ...(outcome === "success" ? (note.details ?? {}) : { status, error: request.errorMessage ?? "" }),
      // A protected cluster written directly: the admin's reason is part of the record, whatever came of it.
      ...(request.overrideReason === undefined ? {} : { overrideReason: request.overrideReason }),
    },
  };
}

/**
 * The audit event of a change that succeeds with `status`, for its handler to write in the
 * change's own transaction (then `request.auditRecorded = true`): the change and its event are
 * kept together, or neither, whatever the client does meanwhile.
 */
export function changeAuditEvent(request: FastifyRequest, status: number, now: number): NewAuditEvent {
  const event = auditEventOf(request, status, now);
  if (event === undefined) throw new Error(`${request.routeKey ?? "?"} is not an audited route`);
  return event;
}

/**
 * How long a success's audit event is retried while the database is unreachable (a restart, a
 * failover) before the response leaves: the change is already made (in a cluster), so its
 * event must not be dropped for an outage of a few seconds. Refusals are written once.
 */
export const AUDIT_RETRY: BackoffPolicy & { forMs: number } = {
  initialMs: 200,
  maxMs: 2000,
  factor: 2,
  jitter: 0.2,
  forMs: 20_000,
};

/**
 * Appends `event`; a success's event is tried again while the database is unavailable, for up to
 * AUDIT_RETRY.forMs. Any other error, or a refusal's event, fails at once.
 */
export async function appendSurvivingOutages(
  event: NewAuditEvent,
  append: (event: NewAuditEvent) => Promise<void>,
  clock: { now: () => number; sleep: (ms: number) => Promise<unknown>; random: () => number } = {
    now: Date.now,
    sleep,
    random: Math.random,
  },
): Promise<void> {
  const deadline = clock.now() + (event.outcome === "success" ? AUDIT_RETRY.forMs : 0);
  for (let attempt = 0; ; attempt++) {
    try {
      await append(event);
      return;
    } catch (error) {
      if (!databaseUnavailable(error) || clock.now() >= deadline) throw error;
      await clock.sleep(backoffDelay(AUDIT_RETRY, attempt, clock.random()));
    }
  }
}

/**
 * Records every audited request that its handler did not record itself (refusals, failures,
 * logins) once its status is known and before the response leaves, so that a client reading
 * the log right after its change finds it there.
 */
export function installAuditRecorder(app: FastifyInstance, ctx: ApiContext): void {
  app.decorateRequest("auditRecorded", false);
  // Refused password logins, which anyone may send, are counted per source and hour (refused-logins.ts).
  const refusedLogins = refusedLoginLog(ctx);
  app.addHook("onSend", async (request, reply, payload) => {
    if (request.auditRecorded) return payload;
    const now = ctx.now();
    const event = auditEventOf(request, reply.statusCode, now);
    if (event === undefined) return payload;
    try {
      if (event.action === "login_failed") await refusedLogins.record(event, now);
      else await appendSurvivingOutages(event, (e) => ctx.audit.append(e));
    } catch (error) {
      ctx.metrics.auditWriteFailures.inc();
      request.log.error({ err: error }, "could not write the audit event");
    }
    return payload;
  });
}
