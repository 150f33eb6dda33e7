// The REST API of issue 3 over real HTTP, on SQLite and on PostgreSQL: one suite, two backends.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_PASSWORD, BACKENDS, TestApi, testConfig } from "./support/harness.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
const UNKNOWN_TOKEN = "ab".repeat(32);

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

describe.each(BACKENDS)("API server on $name", (backend) => {
  let api: TestApi;
  let remove: () => Promise<void>;
  /** A live token per role, and the kinds of tokens that must get 401. */
  const tokens: Record<string, string> = {};
  const deadTokens: Record<string, string | undefined> = {};

  beforeAll(async () => {
    const db = await backend.open();
    remove = db.remove;
    api = await TestApi.start(testConfig(db.database));
    const admin = await api.login("admin", ADMIN_PASSWORD);
    await api.createUser(admin, "ed", "editor");
    await api.createUser(admin, "vi", "viewer");
    deadTokens["expired"] = await api.login("vi", "vi-password");
    deadTokens["logged-out"] = await api.login("ed", "ed-password");
    expect((await api.call("POST", "/api/v1/auth/logout", { token: deadTokens["logged-out"] })).status).toBe(
      200,
    );
    deadTokens["none"] = undefined;
    deadTokens["unknown"] = UNKNOWN_TOKEN;
    deadTokens["malformed"] = "not-a-token";
    // A day passes: every token issued so far has expired.
    api.clock.offsetMs += DAY_MS + 1000;
    tokens["admin"] = await api.login("admin", ADMIN_PASSWORD);
    tokens["editor"] = await api.login("ed", "ed-password");
    tokens["viewer"] = await api.login("vi", "vi-password");
  });

  afterAll(async () => {
    await api.close();
    await remove();
  });

  const token = (role: string): string => tokens[role] ?? "";

  async function userNames(): Promise<string[]> {
    const reply = await api.call("GET", "/api/v1/users", { token: token("admin") });
    return (reply.json as { username: string }[]).map((u) => u.username);
  }

  async function auditEvents(query = ""): Promise<AuditRow[]> {
    const reply = await api.call("GET", `/api/v1/audit${query}`, { token: token("admin") });
    expect(reply.status).toBe(200);
    return reply.json as AuditRow[];
  }

  describe("SPEC.md role table, for every role and every kind of bad token", () => {
    // Each row: a request, and the status per role. `setup` makes the target it acts on.
    interface Row {
      name: string;
      method: string;
      path: (role: string) => string;
      body?: (role: string) => unknown;
      setup?: (role: string) => Promise<void>;
      expected: Record<"admin" | "editor" | "viewer", number>;
    }
    const rows: Row[] = [
      {
        name: "GET /api/v1/auth/me",
        method: "GET",
        path: () => "/api/v1/auth/me",
        expected: { admin: 200, editor: 200, viewer: 200 },
      },
      {
        name: "GET /api/v1/users",
        method: "GET",
        path: () => "/api/v1/users",
        expected: { admin: 200, editor: 200, viewer: 200 },
      },
      {
        name: "POST /api/v1/users",
        method: "POST",
        path: () => "/api/v1/users",
        body: (role) => ({ username: `new-by-${role}`, password: "a-long-password", role: "viewer" }),
        expected: { admin: 201, editor: 403, viewer: 403 },
      },
      {
        name: "PUT /api/v1/users/{other} (password)",
        method: "PUT",
        path: (role) => `/api/v1/users/put-target-${role}`,
        body: () => ({ password: "another-password" }),
        setup: (role) => api.createUser(token("admin"), `put-target-${role}`, "viewer"),
        expected: { admin: 200, editor: 403, viewer: 403 },
      },
      {
        name: "PUT /api/v1/users/{other} (role)",
        method: "PUT",
        path: (role) => `/api/v1/users/role-target-${role}`,
        body: () => ({ role: "editor" }),
        setup: (role) => api.createUser(token("admin"), `role-target-${role}`, "viewer"),
        expected: { admin: 200, editor: 403, viewer: 403 },
      },
      {
        name: "PUT /api/v1/users/{self} (own role)",
        method: "PUT",
        path: (role) => `/api/v1/users/${role === "admin" ? "admin" : role === "editor" ? "ed" : "vi"}`,
        body: (role) => ({ role }),
        expected: { admin: 200, editor: 403, viewer: 403 },
      },
      {
        name: "DELETE /api/v1/users/{other}",
        method: "DELETE",
        path: (role) => `/api/v1/users/delete-target-${role}`,
        setup: (role) => api.createUser(token("admin"), `delete-target-${role}`, "viewer"),
        expected: { admin: 200, editor: 403, viewer: 403 },
      },
      {
        name: "GET /api/v1/audit",
        method: "GET",
        path: () => "/api/v1/audit",
        expected: { admin: 200, editor: 200, viewer: 200 },
      },
      {
        name: "GET /api/v1/openapi.json",
        method: "GET",
        path: () => "/api/v1/openapi.json",
        expected: { admin: 200, editor: 200, viewer: 200 },
      },
    ];

    it.each(rows)("$name", async (row) => {
      for (const role of ["admin", "editor", "viewer"] as const) {
        await row.setup?.(role);
        const reply = await api.call(row.method, row.path(role), {
          token: token(role),
          body: row.body?.(role),
        });
        expect({ role, status: reply.status }).toEqual({ role, status: row.expected[role] });
        if (reply.status >= 400) expect(typeof (reply.json as { error: unknown }).error).toBe("string");
        for (const [kind, dead] of Object.entries(deadTokens)) {
          const refused = await api.call(row.method, row.path(role), { token: dead, body: row.body?.(role) });
          expect({ kind, status: refused.status }).toEqual({ kind, status: 401 });
          expect(refused.json).toEqual({ error: expect.any(String) as string });
        }
      }
      // Refused requests changed nothing: only the admin's creation happened.
      if (row.name === "POST /api/v1/users") {
        expect((await userNames()).filter((n) => n.startsWith("new-by-"))).toEqual(["new-by-admin"]);
      }
    });

    it("lets a non-admin change their own password, and nothing else about themselves", async () => {
      const admin = token("admin");
      await api.createUser(admin, "self-ed", "editor");
      const own = await api.login("self-ed", "self-ed-password");
      const changed = await api.call("PUT", "/api/v1/users/self-ed", {
        token: own,
        body: { password: "brand-new-password" },
      });
      expect(changed).toMatchObject({ status: 200, json: { message: expect.any(String) as string } });
      const withRole = await api.call("PUT", "/api/v1/users/self-ed", {
        token: own,
        body: { password: "third-password", role: "editor" },
      });
      expect(withRole.status).toBe(403);
      // The session that changed the password carries on; the new password works, the old does not.
      expect((await api.call("GET", "/api/v1/auth/me", { token: own })).status).toBe(200);
      await api.login("self-ed", "brand-new-password");
      const old = await api.call("POST", "/api/v1/auth/login", {
        body: { username: "self-ed", password: "self-ed-password" },
      });
      expect(old.status).toBe(401);
    });

    it("answers the exempt endpoints without a token", async () => {
      const health = await api.call("GET", "/healthz");
      expect(health.status).toBe(200);
      expect(health.text).toBe("ok");
      expect(health.headers.get("content-type")).toMatch(/^text\/plain/);
      expect((await api.call("GET", "/readyz")).status).toBe(200);
    });
  });

  describe("authentication", () => {
    it("logs in with a 64-hex token, expiry and user; refuses a wrong password or user alike", async () => {
      const reply = await api.call("POST", "/api/v1/auth/login", {
        body: { username: "admin", password: ADMIN_PASSWORD },
      });
      expect(reply.status).toBe(200);
      const body = reply.json as { token: string; expiresAt: string; user: unknown };
      expect(body.token).toMatch(/^[0-9a-f]{64}$/);
      expect(Date.parse(body.expiresAt) - api.clock.now()).toBeGreaterThan(DAY_MS - 60_000);
      expect(body.user).toEqual({ username: "admin", role: "admin" });
      const wrongPassword = await api.call("POST", "/api/v1/auth/login", {
        body: { username: "admin", password: "nope-nope" },
      });
      const wrongUser = await api.call("POST", "/api/v1/auth/login", {
        body: { username: "ghost", password: "nope-nope" },
      });
      expect(wrongPassword.status).toBe(401);
      expect(wrongUser.status).toBe(401);
      expect(wrongPassword.json).toEqual({ error: "invalid username or password" });
      expect(wrongUser.json).toEqual(wrongPassword.json);
    });

    it("says why a token is refused: expired, logged out or unknown", async () => {
      const me = (t: string | undefined) => api.call("GET", "/api/v1/auth/me", { token: t });
      expect((await me(deadTokens["expired"])).json).toEqual({ error: "token expired" });
      expect((await me(deadTokens["logged-out"])).json).toEqual({ error: "invalid or ended token" });
      expect((await me(undefined)).json).toEqual({ error: "missing bearer token: log in first" });
      expect((await me(token("viewer"))).json).toEqual({ username: "vi", role: "viewer" });
    });

    it("throttles a username after 10 failed logins with 429 and Retry-After", async () => {
      const attempt = (password: string) =>
        api.call("POST", "/api/v1/auth/login", { body: { username: "ed", password } });
      for (let i = 0; i < 10; i++) expect((await attempt(`wrong-${i}-password`)).status).toBe(401);
      const throttled = await attempt("ed-password");
      expect(throttled.status).toBe(429);
      expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(throttled.json).toEqual({ error: expect.any(String) as string });
      // Other usernames are not affected; after the window the right password works again.
      await api.login("vi", "vi-password");
      api.clock.offsetMs += 15 * 60 * 1000;
      await api.login("ed", "ed-password");
      // The clock moved: refresh the live tokens' validity is unaffected (well within 24 h).
      expect((await api.call("GET", "/api/v1/auth/me", { token: token("editor") })).status).toBe(200);
    });
  });

  describe("users", () => {
    it("lists users by name with role and createdAt, never a password", async () => {
      const reply = await api.call("GET", "/api/v1/users", { token: token("viewer") });
      const users = reply.json as Record<string, unknown>[];
      const names = users.map((u) => u["username"] as string);
      expect(names).toEqual([...names].sort());
      for (const user of users) {
        expect(Object.keys(user).sort()).toEqual(["createdAt", "role", "username"]);
        expect(Number.isNaN(Date.parse(user["createdAt"] as string))).toBe(false);
      }
      expect(reply.text).not.toMatch(/password|\$2[aby]\$/);
    });

    it("creates with 201 {username, role, createdAt}; a duplicate is 409", async () => {
      const body = { username: "Carol.d_1", password: "carol-password", role: "editor" };
      const created = await api.call("POST", "/api/v1/users", { token: token("admin"), body });
      expect(created.status).toBe(201);
      expect(created.json).toMatchObject({
        username: "Carol.d_1",
        role: "editor",
        createdAt: expect.any(String) as string,
      });
      const again = await api.call("POST", "/api/v1/users", { token: token("admin"), body });
      expect(again.status).toBe(409);
      expect(again.json).toEqual({ error: "user Carol.d_1 already exists" });
    });

    it.each([
      [{ username: "", password: "long-enough", role: "viewer" }, "username"],
      [{ username: "-dash", password: "long-enough", role: "viewer" }, "username"],
      [{ username: "a".repeat(64), password: "long-enough", role: "viewer" }, "username"],
      [{ username: "sp ace", password: "long-enough", role: "viewer" }, "username"],
      [{ username: "okname", password: "short", role: "viewer" }, "password"],
      [{ username: "okname", password: "é".repeat(37), role: "viewer" }, "password"],
      [{ username: "okname", password: "long-enough", role: "root" }, "role"],
      [{ username: "okname", password: "long-enough" }, "role"],
      [{ username: "okname", password: 12345678, role: "viewer" }, "password"],
      [{ username: "okname", password: "long-enough", role: "viewer", admin: true }, "admin"],
      [["okname"], "JSON object"],
      [null, "JSON object"],
    ])("refuses %j with 400 naming %s, and creates nothing", async (body, field) => {
      const reply = await api.call("POST", "/api/v1/users", { token: token("admin"), body });
      expect(reply.status).toBe(400);
      expect((reply.json as { error: string }).error).toContain(field);
      expect(await userNames()).not.toContain("okname");
    });

    it("refuses malformed, oversize and non-JSON bodies with JSON errors", async () => {
      const admin = token("admin");
      const post = (rawBody: string, type = "application/json") =>
        api.call("POST", "/api/v1/users", { token: admin, rawBody, headers: { "content-type": type } });
      const broken = await post('{"username": "x", "password": "secret-secret');
      expect(broken).toMatchObject({ status: 400, json: { error: "request body is not valid JSON" } });
      expect(broken.text).not.toContain("secret");
      expect((await post("")).json).toEqual({ error: "request body must be a JSON object" });
      const huge = await post(
        JSON.stringify({ username: "big", password: "x".repeat(1024 * 1024), role: "viewer" }),
      );
      expect(huge).toMatchObject({ status: 413, json: { error: "request body is larger than 1 MiB" } });
      const text = await post("username=x", "text/plain");
      expect(text).toMatchObject({ status: 415, json: { error: expect.any(String) as string } });
      const poisoned = await post(
        '{"username":"p1","password":"long-enough","role":"viewer","__proto__":{"x":1}}',
      );
      expect(poisoned.status).toBe(400);
      expect(await userNames()).not.toContain("big");
    });

    it("updates: empty body 400, unknown user 404, unknown field 400, password over 72 bytes 400", async () => {
      const put = (name: string, body: unknown) =>
        api.call("PUT", `/api/v1/users/${name}`, { token: token("admin"), body });
      expect((await put("vi", {})).json).toEqual({
        error: "must hold password, role or both: there is nothing to change",
      });
      expect((await put("nobody", { role: "viewer" })).status).toBe(404);
      expect((await put("vi", { role: "viewer", username: "x" })).json).toEqual({
        error: "username: must match the path: users cannot be renamed",
      });
      expect((await put("vi", { role: "viewer", email: "x" })).json).toEqual({
        error: "email: is not a known field",
      });
      // GET, edit, PUT back: the read-only fields of the representation are accepted.
      const users = (await api.call("GET", "/api/v1/users", { token: token("admin") })).json as {
        username: string;
      }[];
      const vi = users.find((u) => u.username === "vi");
      expect((await put("vi", { ...vi, role: "viewer" })).status).toBe(200);
      expect((await put("vi", { password: "€".repeat(25) })).json).toEqual({
        error: "password: must be at most 72 bytes of UTF-8",
      });
    });

    it("applies a role change at the next request", async () => {
      const admin = token("admin");
      await api.createUser(admin, "promoted", "viewer");
      const own = await api.login("promoted", "promoted-password");
      const before = await api.call("POST", "/api/v1/users", {
        token: own,
        body: { username: "by-promoted", password: "long-enough", role: "viewer" },
      });
      expect(before.status).toBe(403);
      expect(
        (await api.call("PUT", "/api/v1/users/promoted", { token: admin, body: { role: "admin" } })).status,
      ).toBe(200);
      expect((await api.call("GET", "/api/v1/auth/me", { token: own })).json).toEqual({
        username: "promoted",
        role: "admin",
      });
    });

    it("ends the user's sessions on delete, and the other sessions on a password change by an admin", async () => {
      const admin = token("admin");
      await api.createUser(admin, "leaver", "viewer");
      const session = await api.login("leaver", "leaver-password");
      expect(
        (
          await api.call("PUT", "/api/v1/users/leaver", {
            token: admin,
            body: { password: "reset-password" },
          })
        ).status,
      ).toBe(200);
      expect((await api.call("GET", "/api/v1/auth/me", { token: session })).status).toBe(401);
      const second = await api.login("leaver", "reset-password");
      expect((await api.call("DELETE", "/api/v1/users/leaver", { token: admin })).json).toEqual({
        message: "user leaver deleted",
      });
      expect((await api.call("GET", "/api/v1/auth/me", { token: second })).status).toBe(401);
    });

    it("deletes: not yourself (400), unknown (404); the last admin can be neither deleted nor demoted (409)", async () => {
      const admin = token("admin");
      expect((await api.call("DELETE", "/api/v1/users/admin", { token: admin })).json).toEqual({
        error: "cannot delete yourself",
      });
      expect((await api.call("DELETE", "/api/v1/users/nobody", { token: admin })).status).toBe(404);
      // Demote every other admin, then the one left is protected.
      const others = (
        (await api.call("GET", "/api/v1/users", { token: admin })).json as {
          username: string;
          role: string;
        }[]
      ).filter((u) => u.role === "admin" && u.username !== "admin");
      for (const other of others) {
        expect(
          (
            await api.call("PUT", `/api/v1/users/${other.username}`, {
              token: admin,
              body: { role: "viewer" },
            })
          ).status,
        ).toBe(200);
      }
      const demote = await api.call("PUT", "/api/v1/users/admin", { token: admin, body: { role: "editor" } });
      expect(demote).toMatchObject({
        status: 409,
        json: { error: "user admin is the last admin and cannot be demoted" },
      });
      expect((await api.call("GET", "/api/v1/auth/me", { token: admin })).json).toEqual({
        username: "admin",
        role: "admin",
      });
    });

    it("creates a username requested concurrently exactly once", async () => {
      const replies = await Promise.all(
        Array.from({ length: 12 }, () =>
          api.call("POST", "/api/v1/users", {
            token: token("admin"),
            body: { username: "raced", password: "race-password", role: "viewer" },
          }),
        ),
      );
      const statuses = replies.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s !== 201).every((s) => s === 409)).toBe(true);
    });
  });

  describe("audit log", () => {
    it("records logins, failed logins, logouts, changes with before/after, and denials; never a password", async () => {
      const t = await api.login("vi", "vi-password");
      await api.call("POST", "/api/v1/auth/login", { body: { username: "vi", password: "not-vi-password" } });
      await api.call("PUT", "/api/v1/users/ed", { token: t, body: { password: "vi-sets-ed-password" } });
      await api.call("POST", "/api/v1/auth/logout", { token: t });
      await api.createUser(token("admin"), "audited", "viewer", "audited-secret-password");
      await api.call("PUT", "/api/v1/users/audited", {
        token: token("admin"),
        body: { role: "editor", password: "audited-new-secret" },
      });

      const events = await auditEvents("?limit=1000");
      const find = (match: Partial<AuditRow>) =>
        events.find((e) => Object.entries(match).every(([k, v]) => e[k as keyof AuditRow] === v));
      expect(find({ action: "login", actor: "vi", outcome: "success", resource: "session" })).toBeDefined();
      expect(find({ action: "login_failed", actor: "vi", outcome: "failure" })).toBeDefined();
      expect(find({ action: "logout", actor: "vi", actorRole: "viewer" })).toBeDefined();
      const denied = find({ action: "update", actor: "vi", resourceName: "ed", outcome: "denied" });
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

    it("filters by resource, action, actor, cluster and time, and pages with limit/before", async () => {
      for (const event of await auditEvents("?resource=session&action=logout")) {
        expect([event.resource, event.action]).toEqual(["session", "logout"]);
      }
      for (const event of await auditEvents("?actor=vi")) expect(event.actor).toBe("vi");
      expect(await auditEvents("?cluster=elsewhere")).toEqual([]);
      const future = new Date(api.clock.now() + DAY_MS).toISOString();
      expect(await auditEvents(`?since=${future}`)).toEqual([]);
      expect((await auditEvents(`?until=${future}&limit=5`)).length).toBe(5);
      const all = await auditEvents("?limit=1000");
      const firstPage = await auditEvents("?limit=3");
      const secondPage = await auditEvents(`?limit=3&before=${firstPage[2]?.id ?? 0}`);
      expect([...firstPage, ...secondPage]).toEqual(all.slice(0, 6));
    });

    it.each([
      ["?limit=0", "query.limit"],
      ["?limit=1001", "query.limit"],
      ["?before=x", "query.before"],
      ["?since=yesterday", "query.since"],
      ["?resource=planet", "query.resource"],
      ["?colour=red", "query.colour"],
    ])("refuses %s with 400 naming %s", async (query, field) => {
      const reply = await api.call("GET", `/api/v1/audit${query}`, { token: token("viewer") });
      expect(reply.status).toBe(400);
      expect((reply.json as { error: string }).error).toContain(field);
    });

    it("exports CSV with Accept: text/csv", async () => {
      const reply = await api.call("GET", "/api/v1/audit?limit=2", {
        token: token("editor"),
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

  describe("the server", () => {
    it("answers unknown routes with a JSON 404", async () => {
      const reply = await api.call("GET", "/api/v1/nothing-here", { token: token("admin") });
      expect(reply).toMatchObject({ status: 404, json: { error: "no route GET /api/v1/nothing-here" } });
    });

    it("serves an OpenAPI 3.1 document of its routes", async () => {
      const doc = (await api.call("GET", "/api/v1/openapi.json", { token: token("viewer") })).json as {
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

    it("exposes Prometheus metrics on its own port", async () => {
      const metrics = await (await fetch(`${api.metricsUrl}/metrics`)).text();
      expect(metrics).toContain("svc_api_http_request_duration_seconds_bucket");
      expect(metrics).toMatch(/svc_api_logins_total\{outcome="success"\} \d+/);
    });

    it("keeps users and the audit log across a restart, and ends every session", async () => {
      const auditBefore = await auditEvents("?limit=1000");
      const usersBefore = await userNames();
      const oldAdmin = token("admin");
      await api.restart();
      expect((await api.call("GET", "/api/v1/auth/me", { token: oldAdmin })).status).toBe(401);
      for (const role of ["admin", "editor", "viewer"]) {
        expect((await api.call("GET", "/api/v1/auth/me", { token: token(role) })).status).toBe(401);
      }
      tokens["admin"] = await api.login("admin", ADMIN_PASSWORD);
      expect(await userNames()).toEqual(usersBefore);
      const auditAfter = await auditEvents("?limit=1000");
      expect(auditAfter.slice(-auditBefore.length)).toEqual(auditBefore);
    });

    it("deletes audit events older than the retention (365 days here) when it starts", async () => {
      expect((await auditEvents("?limit=1")).length).toBe(1);
      api.clock.offsetMs += 366 * DAY_MS;
      await api.restart();
      tokens["admin"] = await api.login("admin", ADMIN_PASSWORD);
      expect((await auditEvents("?limit=1000")).map((e) => [e.action, e.actor])).toEqual([
        ["login", "admin"],
      ]);
    });
  });

  it("never leaves zero admins when two admins demote each other at once", async () => {
    // Its own database: here the two admins are the only ones.
    const db = await backend.open();
    const pair = await TestApi.start(testConfig(db.database));
    try {
      const admin = await pair.login("admin", ADMIN_PASSWORD);
      await pair.createUser(admin, "rival", "admin");
      const rival = await pair.login("rival", "rival-password");
      const replies = await Promise.all([
        pair.call("PUT", "/api/v1/users/rival", { token: admin, body: { role: "viewer" } }),
        pair.call("PUT", "/api/v1/users/admin", { token: rival, body: { role: "viewer" } }),
      ]);
      // One wins; the other finds the last admin (409) or has already lost its role (403).
      expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
      expect(replies.every((r) => [200, 403, 409].includes(r.status))).toBe(true);
      const users = (await pair.call("GET", "/api/v1/users", { token: admin })).json as { role: string }[];
      expect(users.filter((u) => u.role === "admin")).toHaveLength(1);
    } finally {
      await pair.close();
      await db.remove();
    }
  });
});
