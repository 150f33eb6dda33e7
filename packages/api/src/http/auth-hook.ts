import { authorizePrincipal, handlerChecksScope, ROUTE_RULES, routeKey, ruleFor } from "@svc/core";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { bearerToken } from "../auth/sessions.ts";
import type { ApiContext } from "../context.ts";
import { HttpError } from "./errors.ts";
import { hookScopes } from "./hook-scopes.ts";

/** Resolves the caller of a request from its bearer token, or explains (401) why there is none. */
async function authenticate(ctx: ApiContext, request: FastifyRequest): Promise<void> {
  const header = request.headers.authorization;
  if (header === undefined) throw new HttpError(401, "missing bearer token: log in first");
  const token = bearerToken(header);
  if (token === undefined)
    throw new HttpError(401, "invalid token: expected 'Authorization: Bearer <64 hex>'");
  const lookup = ctx.sessions.lookup(token);
  if (!lookup.found) {
    throw new HttpError(401, lookup.reason === "expired" ? "token expired" : "invalid or ended token");
  }
  // The user is read on every request: a role change applies at once, and a deleted user or a
  // changed password ends the session, also when the change was made through another replica.
  const user = await ctx.users.find(lookup.session.username);
  if (user === undefined || user.securityStamp !== lookup.session.securityStamp) {
    ctx.sessions.close(token);
    throw new HttpError(401, "session ended: the user was deleted or its password changed");
  }
  request.actor = { username: user.username, role: user.role, grants: user.grants };
  request.sessionToken = token;
}

/**
 * The one place where access is decided: every route is looked up in core's ROUTE_RULES
 * (refused at registration when it has no row), then 401 or 403 before any handler runs.
 */
export function installAuth(app: FastifyInstance, ctx: ApiContext): void {
  app.decorateRequest("routeKey", undefined);
  app.decorateRequest("actor", undefined);
  app.decorateRequest("sessionToken", undefined);
  app.decorateRequest("auditNote", undefined);
  app.decorateRequest("errorMessage", undefined);
  app.decorateRequest("scopeChecked", false);
  app.decorateRequest("overrideReason", undefined);

  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) {
      const key = routeKey(method, route.url);
      const rule = ruleFor(ROUTE_RULES, key);
      if (rule === undefined) throw new Error(`route ${key} has no row in ROUTE_RULES`);
      // A row's scope says where its role is needed (core's ScopeRule); none is no decision at all.
      if (typeof rule.scope !== "string") throw new Error(`route ${key} has no scope rule in ROUTE_RULES`);
    }
  });

  app.addHook("onRequest", async (request) => {
    const url = request.routeOptions.url;
    if (url === undefined) return; // no route: the 404 handler answers
    const key = routeKey(request.method, url);
    request.routeKey = key;
    if (ruleFor(ROUTE_RULES, key)?.access === "public") return;
    await authenticate(ctx, request);
    const decision = authorizePrincipal(ROUTE_RULES, key, request.actor);
    // authenticate() either set the actor or threw a 401: what is left to refuse is the role.
    if (decision.outcome !== "allow")
      throw new HttpError(403, "message" in decision ? decision.message : key);
  });

  // The scopes a path and query name (a flag, a namespace, a cluster) are decided once the query
  // and params are validated, before the handler reads anything.
  app.addHook("preHandler", (request, _reply, done) => {
    const rule = request.routeKey === undefined ? undefined : ruleFor(ROUTE_RULES, request.routeKey);
    try {
      if (rule !== undefined && rule.access !== "public") hookScopes(ctx, request, rule.scope);
      done();
    } catch (error) {
      done(error instanceof Error ? error : new Error(String(error)));
    }
  });

  // A handler-scoped route must have checked or filtered by the caller's scope before answering
  // 2xx: a handler that forgot answers 500 instead of data the caller may not see.
  app.addHook("onSend", async (request, reply, payload) => {
    const rule = request.routeKey === undefined ? undefined : ruleFor(ROUTE_RULES, request.routeKey);
    if (rule === undefined || rule.access === "public" || reply.statusCode >= 300) return payload;
    if (!handlerChecksScope(rule.scope) || request.scopeChecked) return payload;
    request.log.error({ route: request.routeKey }, "a handler-scoped route answered without a scope check");
    void reply.code(500).type("application/json");
    return JSON.stringify({
      error: `internal error: ${request.routeKey ?? "?"} did not check the caller's scope`,
    });
  });
}
