// The audit log over real HTTP, on SQLite and on PostgreSQL.
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN_PASSWORD, BACKENDS, serverForSuite, userWithRole } from "./support/harness.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

interface AuditRow {
  id: number;
  actor: string;
  actorRole: string;
  action: string;
  resource: string;
  resourceName: string;
  outcome: string;
  sourceIp: string;
  details: Record<string, unknown>;
}

describe.each(BACKENDS)("audit log on $name", (backend) => {
  const server = serverForSuite(backend);
  let admin = "";

  beforeAll(async () => {
    admin = await server().login("admin", ADMIN_PASSWORD);
  });

  async function auditEvents(query = ""): Promise<AuditRow[]> {
    const reply = await server().call("GET", `/api/v1/audit${query}`, { token: admin });
    expect(reply.status).toBe(200);
    return reply.json as AuditRow[];
  }

  it("records logins, failed logins, logouts, changes with before/after, and denials; never a password", async () => {
    const api = server();
    const vi = await userWithRole(api, "viewer");
    const ed = await userWithRole(api, "editor");
    const t = await api.login(vi.username, vi.password);
    await api.call("POST", "/api/v1/auth/login", {
      body: { username: vi.username, password: "not-vi-password" },
    });
    await api.call("PUT", `/api/v1/users/${ed.username}`, {
      token: t,
      body: { password: "vi-sets-ed-password" },
    });
    await api.call("POST", "/api/v1/auth/logout", { token: t });
    await api.createUser(admin, "audited", "viewer", "audited-secret-password");
    await api.call("PUT", "/api/v1/users/audited", {
      token: admin,
      body: { role: "editor", password: "audited-new-secret" },
    });

    const events = await auditEvents("?limit=1000");
    const find = (match: Partial<AuditRow>) =>
      events.find((e) => Object.entries(match).every(([k, v]) => e[k as keyof AuditRow] === v));
    expect(
      find({ action: "login", actor: vi.username, outcome: "success", resource: "session" }),
    ).toBeDefined();
    expect(find({ action: "login_failed", actor: vi.username, outcome: "failure" })).toBeDefined();
    expect(find({ action: "logout", actor: vi.username, actorRole: "viewer" })).toBeDefined();
    const denied = find({
      action: "update",
      actor: vi.username,
      resourceName: ed.username,
      outcome: "denied",
    });
    expect(denied?.details).toMatchObject({ status: 403 });
    expect(find({ action: "create", resourceName: "audited", actor: "admin" })?.details).toEqual({
      before: {},
      after: { role: "viewer", username: "audited" },
    });
    const update = find({ action: "update", resourceName: "audited", outcome: "success" });
    expect(update?.details).toEqual({
      before: { role: "viewer" },
      after: { role: "editor" },
      passwordChanged: true,
    });
    expect(update?.sourceIp).toBe("127.0.0.1");
    const everything = JSON.stringify(events);
    for (const secret of [
      "audited-secret-password",
      "audited-new-secret",
      "vi-sets-ed-password",
      "not-vi-password",
      ADMIN_PASSWORD,
    ]) {
      expect(everything).not.toContain(secret);
    }
    // Ids grow with time: newest first.
    const ids = events.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });

  it("refuses every role-escalation attempt with 403 and records each as denied, with its actor", async () => {
    const api = server();
    const vi = await userWithRole(api, "viewer");
    const ed = await userWithRole(api, "editor");
    const viewer = await api.login(vi.username, vi.password);
    const editor = await api.login(ed.username, ed.password);
    const attempts = [
      {
        token: viewer,
        actor: vi.username,
        method: "PUT",
        path: `/api/v1/users/${vi.username}`,
        body: { role: "admin" },
        action: "update",
      },
      {
        token: viewer,
        actor: vi.username,
        method: "POST",
        path: "/api/v1/users",
        body: { username: "vi-made-admin", password: "a-long-password", role: "admin" },
        action: "create",
      },
      {
        token: editor,
        actor: ed.username,
        method: "PUT",
        path: `/api/v1/users/${ed.username}`,
        body: { role: "admin" },
        action: "update",
      },
      {
        token: editor,
        actor: ed.username,
        method: "POST",
        path: "/api/v1/users",
        body: { username: "ed-made-admin", password: "a-long-password", role: "admin" },
        action: "create",
      },
      {
        token: editor,
        actor: ed.username,
        method: "DELETE",
        path: `/api/v1/users/${vi.username}`,
        body: undefined,
        action: "delete",
      },
      {
        token: editor,
        actor: ed.username,
        method: "DELETE",
        path: "/api/v1/flags/shop/checkout?clusterId=local",
        body: undefined,
        action: "delete",
      },
      {
        token: viewer,
        actor: vi.username,
        method: "POST",
        path: "/api/v1/flags/shop/checkout/toggle?clusterId=local",
        body: { enabled: false },
        action: "toggle",
      },
      {
        token: editor,
        actor: ed.username,
        method: "POST",
        path: "/api/v1/clusters",
        body: { id: "mine" },
        action: "create",
      },
    ];
    for (const { token, method, path, body } of attempts) {
      const reply = await api.call(method, path, { token, ...(body === undefined ? {} : { body }) });
      expect(reply.status, `${method} ${path}`).toBe(403);
    }
    const events = await auditEvents("?limit=1000");
    for (const { actor, action, method, path } of attempts)
      expect(
        events.some(
          (e) =>
            e.actor === actor && e.action === action && e.outcome === "denied" && e.details["status"] === 403,
        ),
        `${method} ${path} by ${actor} is audited as denied`,
      ).toBe(true);
    const users = (await api.call("GET", "/api/v1/users", { token: admin })).json as {
      username: string;
      role: string;
    }[];
    expect(users.find((u) => u.username === vi.username)?.role).toBe("viewer");
    expect(users.find((u) => u.username === ed.username)?.role).toBe("editor");
    expect(users.map((u) => u.username)).not.toContain("vi-made-admin");
  });

  it("filters by resource, action, actor, cluster and time, and pages with limit/before", async () => {
    const api = server();
    // Events of its own: a user who logs in and out three times.
    const vi = await userWithRole(api, "viewer");
    for (let i = 0; i < 3; i++) {
      const token = await api.login(vi.username, vi.password);
      await api.call("POST", "/api/v1/auth/logout", { token });
    }
    const logouts = await auditEvents("?resource=session&action=logout");
    expect(logouts.length).toBeGreaterThanOrEqual(3);
    for (const event of logouts) expect([event.resource, event.action]).toEqual(["session", "logout"]);
    const own = await auditEvents(`?actor=${vi.username}`);
    expect(own.length).toBeGreaterThanOrEqual(7);
    for (const event of own) expect(event.actor).toBe(vi.username);
    expect(await auditEvents("?cluster=elsewhere")).toEqual([]);
    const future = new Date(api.clock.now() + DAY_MS).toISOString();
    expect(await auditEvents(`?since=${future}`)).toEqual([]);
    expect((await auditEvents(`?until=${future}&limit=5`)).length).toBe(5);
    const all = await auditEvents("?limit=1000");
    const firstPage = await auditEvents("?limit=3");
    const secondPage = await auditEvents(`?limit=3&before=${firstPage[2]?.id ?? 0}`);
    expect([...firstPage, ...secondPage]).toEqual(all.slice(0, 6));
  });

  it("finds one resource's events by name and namespace, however many other events are newer", async () => {
    const api = server();
    const mine = await userWithRole(api, "viewer");
    const other = await userWithRole(api, "viewer");
    for (let i = 0; i < 5; i++) {
      await api.call("PUT", `/api/v1/users/${other.username}`, {
        token: admin,
        body: { role: i % 2 === 0 ? "editor" : "viewer" },
      });
    }
    const history = await auditEvents(`?resource=user&resourceName=${mine.username}&namespace=&limit=2`);
    expect(history.map((e) => [e.resource, e.resourceName, e.action])).toEqual([
      ["user", mine.username, "create"],
    ]);
    expect(await auditEvents(`?resourceName=${mine.username}&namespace=shop`)).toEqual([]);
    expect(await auditEvents(`?resource=flag&resourceName=${mine.username}`)).toEqual([]);
  });

  it.each([
    ["?resourceName=" + "x".repeat(254), "query.resourceName"],
    ["?namespace=" + "x".repeat(254), "query.namespace"],
    ["?limit=0", "query.limit"],
    ["?limit=1001", "query.limit"],
    ["?before=x", "query.before"],
    ["?since=yesterday", "query.since"],
    ["?since=2026-02-31", "query.since"],
    ["?until=2026-04-31T10:00:00Z", "query.until"],
    ["?resource=planet", "query.resource"],
    ["?colour=red", "query.colour"],
  ])("refuses %s with 400 naming %s", async (query, field) => {
    const reply = await server().call("GET", `/api/v1/audit${query}`, { token: admin });
    expect(reply.status).toBe(400);
    expect((reply.json as { error: string }).error).toContain(field);
  });

  it.each([
    ["application/json, text/csv", "application/json"],
    ["text/csv;q=0.5, application/json", "application/json"],
    ["application/json;q=0.2, text/csv", "text/csv"],
    ["*/*", "application/json"],
  ])("answers Accept: %s with %s", async (accept, type) => {
    const reply = await server().call("GET", "/api/v1/audit?limit=1", { token: admin, headers: { accept } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(new RegExp(`^${type}`));
    expect(reply.headers.get("vary")).toMatch(/accept/i);
  });

  it("answers 406 {error} when the Accept header refuses both JSON and CSV", async () => {
    for (const accept of ["text/csv;q=0", "text/html"]) {
      const reply = await server().call("GET", "/api/v1/audit", { token: admin, headers: { accept } });
      expect(reply).toMatchObject({
        status: 406,
        json: { error: expect.stringMatching(/^Accept: /) as string },
      });
    }
  });

  it("exports CSV with Accept: text/csv", async () => {
    const api = server();
    const editor = await userWithRole(api, "editor");
    const reply = await api.call("GET", "/api/v1/audit?limit=2", {
      token: editor.token,
      headers: { accept: "text/csv" },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(/^text\/csv/);
    const lines = reply.text.trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "id,timestamp,actor,actorRole,action,resource,resourceName,namespace,cluster,outcome,sourceIp,details",
    );
    expect(lines).toHaveLength(3);
  });
});
