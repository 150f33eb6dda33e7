// The auth hook's guards around the access table, on a real Fastify instance with a real session
// store: a route without a row is refused at registration, and a handler-scoped route whose
// handler forgot its scope check answers 500, never the data.
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { SessionStore } from "../src/auth/sessions.ts";
import type { ApiContext } from "../src/context.ts";
import { installAuth } from "../src/http/auth-hook.ts";
import { installErrorHandling } from "../src/http/errors.ts";
import { markScopeChecked } from "../src/http/scope.ts";
import type { StoredUser } from "../src/users/store.ts";

const scoped: StoredUser = {
  username: "ed",
  role: undefined,
  grants: [{ role: "viewer", clusters: ["local"], namespaces: ["shop"] }],
  passwordHash: "",
  securityStamp: "stamp",
  createdAt: "2026-11-28T00:00:00.000Z",
  ssoIdentity: undefined,
};

function app() {
  const sessions = new SessionStore(() => Date.now());
  const ctx = {
    sessions,
    users: { find: (name: string) => Promise.resolve(name === scoped.username ? scoped : undefined) },
    clusters: undefined,
  } as unknown as ApiContext;
  const server = Fastify();
  installErrorHandling(server);
  installAuth(server, ctx);
  return { server, token: sessions.open(scoped.username, scoped.securityStamp).token };
}

describe("the auth hook", () => {
  it("refuses at registration a route the access table has no row for", () => {
    const { server } = app();
    expect(() => server.get("/api/v1/not-in-the-table", () => "open")).toThrow(
      "route GET /api/v1/not-in-the-table has no row in ROUTE_RULES",
    );
  });

  it("answers 500 for a handler-scoped route whose handler did not check the scope", async () => {
    const { server, token } = app();
    server.get("/api/v1/clusters", () => [{ id: "prod" }]);
    server.get("/api/v1/rollouts", (request) => {
      markScopeChecked(request);
      return [];
    });
    const headers = { authorization: `Bearer ${token}` };
    const forgot = await server.inject({ method: "GET", url: "/api/v1/clusters", headers });
    expect(forgot.statusCode).toBe(500);
    expect(forgot.body).not.toContain("prod");
    expect(forgot.json()).toEqual({
      error: "internal error: GET /api/v1/clusters did not check the caller's scope",
    });
    const checked = await server.inject({ method: "GET", url: "/api/v1/rollouts", headers });
    expect(checked.statusCode).toBe(200);
  });

  it("refuses a grants-only user a global route, naming what they hold", async () => {
    const { server, token } = app();
    server.get("/api/v1/webhooks", () => []);
    const reply = await server.inject({
      method: "GET",
      url: "/api/v1/webhooks",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(reply.statusCode).toBe(403);
    expect(reply.json()).toEqual({
      error:
        "ed has role viewer in cluster local, namespace shop; GET /api/v1/webhooks needs admin as a global role",
    });
  });
});
