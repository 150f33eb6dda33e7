// SPEC.md's role table over real HTTP, on SQLite and on PostgreSQL: every route, every role,
// every kind of token that must be refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_PASSWORD, BACKENDS, TestApi, testConfig } from "./support/harness.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
const UNKNOWN_TOKEN = "ab".repeat(32);

describe.each(BACKENDS)("access on $name", (backend) => {
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
    // A day passes (before any test runs): every token issued so far has expired.
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
    await api.createUser(token("admin"), "self-ed", "editor");
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
