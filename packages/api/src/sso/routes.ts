import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import {
  accessView,
  restRole,
  SessionView,
  ssoSignInDecision,
  ssoUsername,
  type SsoRefusalReason,
} from "@svc/core";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import Type from "typebox";
import { appendSurvivingOutages, changeAuditEvent } from "../audit/recorder.ts";
import { refusedLoginLog } from "../audit/refused-logins.ts";
import type { ApiContext } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { isoTime } from "../time.ts";
import { OidcClient, type PendingSignIn } from "./oidc-client.ts";
import { OneTimeStore } from "./one-time.ts";
import type { SsoConfig } from "./settings.ts";

/** A sign-in has 10 minutes at the provider; a finished one is picked up by the dashboard within a minute. */
const PENDING = { ttlMs: 10 * 60 * 1000, max: 10_000 };
const HANDOFF = { ttlMs: 60 * 1000, max: 10_000 };

/**
 * Binds a sign-in to the browser that started it: without it, an attacker could send someone
 * the callback URL of a sign-in of their own and sign them in as the attacker (login CSRF).
 * SameSite=Lax still reaches the callback, a top-level GET from the provider's site.
 */
const BROWSER_COOKIE = "svc_sso";
const COOKIE_PATH = "/api/v1/auth/sso";

/** Why a callback is refused: the dashboard's /sso page explains each; the audit log gets the status. */
export type CallbackRefusal = SsoRefusalReason | "expired" | "provider";
const REFUSAL_STATUS: Readonly<Record<CallbackRefusal, number>> = {
  expired: 400,
  provider: 401,
  "no-username": 403,
  "no-role": 403,
  "password-user": 403,
  "other-identity": 403,
  "last-admin": 409,
};

/** The login's session view (core's), documented here without the token's description as before. */
const Session = Type.Object({ ...SessionView.properties, token: Type.String() });
type Session = SessionView;
const HandoffBody = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);
type HandoffBody = Type.Static<typeof HandoffBody>;
const Methods = Type.Object({
  passwordLogin: Type.Boolean({ description: "false: only the admin user may log in with a password." }),
  sso: Type.Union([Type.Object({ providerName: Type.String(), loginPath: Type.String() }), Type.Null()]),
});

/**
 * What went wrong with the provider's answer, for the audit log and the API's log: openid-client's
 * messages are general ("invalid response encountered"); the OAuth error code (invalid_grant) or
 * the failed check ("unexpected iss") is in its fields and cause.
 */
export function providerErrorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const fields = error as Error & { error?: unknown; error_description?: unknown };
  const parts = [error.message];
  if (typeof fields.error === "string") parts.push(fields.error);
  if (typeof fields.error_description === "string") parts.push(fields.error_description);
  if (error.cause instanceof Error) parts.push(error.cause.message);
  return parts.join(": ");
}

function hashed(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** Whether `key` hashes to `expected` (a hex SHA-256), in constant time. */
function sameHash(key: string, expected: string): boolean {
  const actual = Buffer.from(hashed(key), "hex");
  const wanted = Buffer.from(expected, "hex");
  return actual.length === wanted.length && timingSafeEqual(actual, wanted);
}

function cookieOf(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}

function cookie(config: SsoConfig, value: string, maxAgeSeconds: number): string {
  const secure = new URL(config.redirectUrl).protocol === "https:" ? "; Secure" : "";
  return `${BROWSER_COOKIE}=${value}; Path=${COOKIE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

function queryParam(request: FastifyRequest, name: string): string | undefined {
  const value = (request.query as Record<string, unknown>)[name];
  return typeof value === "string" ? value : undefined;
}

/** What the single sign-on routes share: the provider's client and the one-time stores. */
interface SsoRoutes {
  ctx: ApiContext;
  config: SsoConfig | undefined;
  client: OidcClient | undefined;
  pending: OneTimeStore<PendingSignIn>;
  // Each code is bound to the browser that started its sign-in (its cookie's hash): a code
  // redeemed elsewhere would sign that browser in as someone else (login CSRF).
  handoffs: OneTimeStore<{ session: Session; browserKey: string }>;
}

function configured({ config, client }: SsoRoutes): { config: SsoConfig; client: OidcClient } {
  if (config === undefined || client === undefined) {
    throw new HttpError(404, "single sign-on is not configured (SVC_OIDC_ISSUER_URL)");
  }
  return { config, client };
}

/** The dashboard's page that finishes a sign-in, on the redirect URL's origin. */
function landing(sso: SsoConfig, fragment: Record<string, string>): string {
  return `${new URL("/sso", sso.redirectUrl).href}#${new URLSearchParams(fragment).toString()}`;
}

/** Every refusal is audited (login_failed, with the status it stands for) and explained by the dashboard. */
async function refuse(
  { ctx }: SsoRoutes,
  request: FastifyRequest,
  reply: FastifyReply,
  sso: SsoConfig,
  refusal: { reason: CallbackRefusal; message: string; username?: string | undefined },
) {
  ctx.metrics.logins.inc({ outcome: "failure" });
  request.errorMessage = `single sign-on refused: ${refusal.message}`;
  try {
    const now = ctx.now();
    const event = changeAuditEvent(request, REFUSAL_STATUS[refusal.reason], now);
    // A state or code anyone can make up is counted per source and hour, not one row each.
    if (refusal.reason === "expired" || refusal.reason === "provider") {
      await refusedLoginLog(ctx).record(event, now, "sso");
    } else {
      await appendSurvivingOutages(event, (e) => ctx.audit.append(e));
    }
  } catch (error) {
    ctx.metrics.auditWriteFailures.inc();
    request.log.error({ err: error }, "could not write the audit event");
  }
  request.auditRecorded = true;
  const fragment = {
    error: refusal.reason,
    ...(refusal.username === undefined ? {} : { user: refusal.username }),
  };
  // The browser's cookie stays: a forged callback must not break the browser's real sign-in.
  return reply.redirect(landing(sso, fragment), 303);
}

/** GET /api/v1/auth/methods: how users may sign in (public: the login page asks). */
function methodsRoute(app: FastifyInstance, { ctx, config }: SsoRoutes): void {
  app.get(
    "/api/v1/auth/methods",
    {
      schema: {
        summary: "How users may sign in (public: the login page asks)",
        response: { 200: Methods },
      },
    },
    () => ({
      passwordLogin: ctx.config.passwordLogin,
      sso:
        config === undefined
          ? null
          : { providerName: config.providerName, loginPath: "/api/v1/auth/sso/login" },
    }),
  );
}

/** GET /api/v1/auth/sso/login: start a single sign-on, a redirect to the provider. */
function loginRoute(app: FastifyInstance, routes: SsoRoutes): void {
  const { pending } = routes;
  app.get(
    "/api/v1/auth/sso/login",
    { schema: { summary: "Start a single sign-on: redirect to the provider" } },
    async (_request, reply) => {
      const sso = configured(routes);
      const browserKey = randomBytes(32).toString("base64url");
      const state = randomBytes(32).toString("base64url");
      let started: Awaited<ReturnType<OidcClient["start"]>>;
      try {
        started = await sso.client.start(state, hashed(browserKey));
      } catch (error) {
        reply.log.warn({ err: error }, "single sign-on: the provider's discovery failed");
        throw new HttpError(
          502,
          `the identity provider at ${sso.config.issuerUrl} cannot be reached: try again shortly`,
        );
      }
      pending.put(started.pending, state);
      return reply
        .header("set-cookie", cookie(sso.config, browserKey, PENDING.ttlMs / 1000))
        .header("cache-control", "no-store")
        .redirect(started.url.href, 302);
    },
  );
}

/**
 * The user a checked answer signs in: created or updated as the claims decide (its role and
 * grants), audited in the same transaction; or the refusal.
 */
function signInUser(
  ctx: ApiContext,
  request: FastifyRequest,
  sso: { config: SsoConfig },
  claims: Record<string, unknown>,
  identity: string,
  username: string | undefined,
  now: number,
) {
  return ctx.users.withUserState(username ?? "", async (stored, writer) => {
    const decided = ssoSignInDecision({
      claims,
      identity,
      usernameClaim: sso.config.usernameClaim,
      roleClaim: sso.config.roleClaim,
      mapping: sso.config.roles,
      groupGrants: sso.config.groupGrants ?? [],
      existing: stored.target,
      adminCount: stored.adminCount,
    });
    if (decided.outcome === "refuse") return decided;
    if (decided.outcome === "create") {
      await writer.insert(
        {
          role: restRole(decided.role),
          grants: decided.grants ?? [],
          passwordHash: "",
          ssoIdentity: identity,
        },
        isoTime(now),
      );
    } else if (stored.target?.role !== decided.role || decided.grants !== undefined) {
      const grants = decided.grants === undefined ? {} : { grants: decided.grants };
      await writer.update({ role: restRole(decided.role), ...grants }, isoTime(now));
    }
    request.actor = {
      username: decided.username,
      role: decided.role,
      grants: decided.grants ?? stored.target?.grants ?? [],
    };
    request.auditNote = {
      details: {
        method: "sso",
        issuer: String(claims.iss),
        created: decided.outcome === "create",
        role: restRole(decided.role),
        ...(decided.grants === undefined ? {} : { grants: decided.grants }),
      },
    };
    await writer.audit(changeAuditEvent(request, 200, now));
    return decided;
  });
}

/** GET /api/v1/auth/sso/callback: the provider's answer, which signs the user in. */
function callbackRoute(app: FastifyInstance, routes: SsoRoutes): void {
  const { ctx, pending, handoffs } = routes;
  app.get(
    "/api/v1/auth/sso/callback",
    { schema: { summary: "The provider's answer: signs the user in" } },
    async (request, reply) => {
      const sso = configured(routes);
      const state = queryParam(request, "state");
      const signIn = state === undefined ? undefined : pending.take(state);
      const browserKey = cookieOf(request, BROWSER_COOKIE);
      if (state === undefined || signIn === undefined) {
        return refuse(routes, request, reply, sso.config, {
          reason: "expired",
          message: "unknown, used or expired state",
        });
      }
      if (browserKey === undefined || hashed(browserKey) !== signIn.browserKey) {
        return refuse(routes, request, reply, sso.config, {
          reason: "expired",
          message: "the sign-in was started in another browser",
        });
      }
      let claims: Record<string, unknown>;
      try {
        claims = await sso.client.finish(request.url.split("?")[1] ?? "", state, signIn);
      } catch (error) {
        const message = providerErrorText(error);
        request.log.warn({ err: error }, "single sign-on: the provider's answer was refused");
        return refuse(routes, request, reply, sso.config, {
          reason: "provider",
          message: `the provider's answer was refused: ${message}`,
        });
      }
      const identity = `${String(claims.iss)} ${String(claims.sub)}`;
      const username = ssoUsername(claims, sso.config.usernameClaim);
      request.auditNote = { attemptedActor: username ?? String(claims.sub) };
      const now = ctx.now();
      const decision = await signInUser(ctx, request, sso, claims, identity, username, now);
      if (decision.outcome === "refuse") return refuse(routes, request, reply, sso.config, decision);
      request.auditRecorded = true;
      const user = await ctx.users.find(decision.username);
      if (user === undefined)
        throw new HttpError(409, `user ${decision.username} was deleted meanwhile: sign in again`);
      ctx.metrics.logins.inc({ outcome: "success" });
      const { token, session } = ctx.sessions.open(user.username, user.securityStamp);
      const code = handoffs.put({
        browserKey: signIn.browserKey,
        session: {
          token,
          expiresAt: isoTime(session.expiresAt),
          user: { username: user.username, ...accessView(user.role, user.grants) },
        },
      });
      // The cookie stays: the dashboard's /sso page redeems the code with it.
      return reply.redirect(landing(sso.config, { code }), 303);
    },
  );
}

/** POST /api/v1/auth/sso/session: the session of a finished single sign-on, once, for its code. */
function sessionRoute(app: FastifyInstance, { config, handoffs }: SsoRoutes): void {
  app.post<{ Body: HandoffBody }>(
    "/api/v1/auth/sso/session",
    {
      schema: {
        summary: "The session of a finished single sign-on, once, for the code its callback gave",
        body: HandoffBody,
        response: { 200: Session },
      },
    },
    (request, reply) => {
      const handoff = handoffs.take(request.body.code);
      const browserKey = cookieOf(request, BROWSER_COOKIE);
      if (handoff === undefined || browserKey === undefined || !sameHash(browserKey, handoff.browserKey)) {
        throw new HttpError(
          400,
          "unknown, used or expired sign-in code, or one started in another browser: sign in again",
        );
      }
      if (config !== undefined) void reply.header("set-cookie", cookie(config, "", 0));
      return handoff.session;
    },
  );
}

/**
 * Single sign-on (docs/api.md "Single sign-on"): GET login redirects to the provider; its
 * callback checks the answer, creates or updates the user and opens the usual session, which
 * the dashboard's /sso page picks up once with a code from the URL's fragment (never sent to a
 * server, so never in an access log), never the token itself.
 */
export function ssoRoutes(ctx: ApiContext) {
  const config = ctx.config.sso;
  const routes: SsoRoutes = {
    ctx,
    config,
    client: config === undefined ? undefined : new OidcClient(config),
    pending: new OneTimeStore<PendingSignIn>(PENDING, ctx.now),
    handoffs: new OneTimeStore<{ session: Session; browserKey: string }>(HANDOFF, ctx.now),
  };
  return (app: FastifyInstance, _options: unknown, done: () => void) => {
    for (const route of [methodsRoute, loginRoute, callbackRoute, sessionRoute]) route(app, routes);
    done();
  };
}
