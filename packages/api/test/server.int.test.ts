// What the API server does as a whole, over real HTTP, on SQLite and on PostgreSQL: unknown
// routes, its OpenAPI document, metrics, restarts and audit retention.
import { ROUTE_RULES } from "@svc/core";
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN_PASSWORD, BACKENDS, serverForSuite, type TestApi, withOwnServer } from "./support/harness.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

async function auditEvents(
  api: TestApi,
  token: string,
  query: string,
): Promise<{ action: string; actor: string }[]> {
  const reply = await api.call("GET", `/api/v1/audit${query}`, { token });
  expect(reply.status).toBe(200);
  return reply.json as { action: string; actor: string }[];
}

async function userNames(api: TestApi, token: string): Promise<string[]> {
  const reply = await api.call("GET", "/api/v1/users", { token });
  return (reply.json as { username: string }[]).map((u) => u.username);
}

describe.each(BACKENDS)("the API server on $name", (backend) => {
  const server = serverForSuite(backend);
  let admin = "";

  beforeAll(async () => {
    admin = await server().login("admin", ADMIN_PASSWORD);
  });

  it("answers unknown routes with a JSON 404", async () => {
    const reply = await server().call("GET", "/api/v1/nothing-here", { token: admin });
    expect(reply).toMatchObject({ status: 404, json: { error: "no route GET /api/v1/nothing-here" } });
  });

  it("serves an OpenAPI 3.1 document of its routes", async () => {
    const doc = (await server().call("GET", "/api/v1/openapi.json", { token: admin })).json as {
      openapi: string;
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: { required?: string[] } }> } }>
      >;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/api/v1/auth/login",
        "/api/v1/users",
        "/api/v1/users/{username}",
        "/api/v1/audit",
        "/healthz",
      ]),
    );
    expect(
      doc.paths["/api/v1/users"]?.["post"]?.requestBody?.content["application/json"]?.schema.required,
    ).toEqual(["username", "password", "role"]);
  });

  it("documents every route it serves, and only routes of the access table", async () => {
    const api = server();
    const doc = (await api.call("GET", "/api/v1/openapi.json", { token: admin })).json as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const served = Object.keys(ROUTE_RULES).filter((key) => {
      const [method = "", url = ""] = key.split(" ");
      return api.server.app.hasRoute({
        method,
        url: url.replace(/\{(\w+)\}/g, ":$1"),
      });
    });
    expect(served.length).toBeGreaterThanOrEqual(9);
    expect(documented.sort()).toEqual(served.sort());
  });

  it("exposes Prometheus metrics on its own port", async () => {
    const api = server();
    await api.login("admin", ADMIN_PASSWORD);
    const metrics = await (await fetch(`${api.metricsUrl}/metrics`)).text();
    expect(metrics).toContain("svc_api_http_request_duration_seconds_bucket");
    expect(metrics).toMatch(/svc_api_logins_total\{outcome="success"\} \d+/);
  });

  it("keeps users and the audit log across a restart, and ends every session", async () => {
    await withOwnServer(backend, async (api) => {
      const before = await api.login("admin", ADMIN_PASSWORD);
      await api.createUser(before, "survivor", "viewer");
      const auditBefore = await auditEvents(api, before, "?limit=1000");
      const usersBefore = await userNames(api, before);
      await api.restart();
      expect((await api.call("GET", "/api/v1/auth/me", { token: before })).status).toBe(401);
      const after = await api.login("admin", ADMIN_PASSWORD);
      expect(await userNames(api, after)).toEqual(usersBefore);
      const auditAfter = await auditEvents(api, after, "?limit=1000");
      expect(auditAfter.slice(-auditBefore.length)).toEqual(auditBefore);
    });
  });

  it("deletes audit events older than the retention (365 days here) when it starts", async () => {
    await withOwnServer(backend, async (api) => {
      const before = await api.login("admin", ADMIN_PASSWORD);
      expect((await auditEvents(api, before, "?limit=1")).length).toBe(1);
      api.clock.offsetMs += 366 * DAY_MS;
      await api.restart();
      const after = await api.login("admin", ADMIN_PASSWORD);
      expect((await auditEvents(api, after, "?limit=1000")).map((e) => [e.action, e.actor])).toEqual([
        ["login", "admin"],
      ]);
    });
  });
});
