// Users over real HTTP, on SQLite and on PostgreSQL.
import { beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_PASSWORD,
  BACKENDS,
  serverForSuite,
  type TestApi,
  userWithRole,
  withOwnServer,
} from "./support/harness.ts";

describe.each(BACKENDS)("users on $name", (backend) => {
  const server = serverForSuite(backend);
  let admin = "";

  beforeAll(async () => {
    admin = await server().login("admin", ADMIN_PASSWORD);
  });

  async function userNames(api: TestApi): Promise<string[]> {
    const reply = await api.call("GET", "/api/v1/users", { token: admin });
    return (reply.json as { username: string }[]).map((u) => u.username);
  }

  it("lists users by name with role and createdAt, never a password", async () => {
    const api = server();
    const viewer = await userWithRole(api, "viewer");
    const reply = await api.call("GET", "/api/v1/users", { token: viewer.token });
    const users = reply.json as Record<string, unknown>[];
    const names = users.map((u) => u["username"] as string);
    expect(names).toEqual([...names].sort());
    expect(names).toContain(viewer.username);
    // SPEC.md's shape: users created as SPEC.md shows hold no grants, and carry no grants field.
    for (const user of users) {
      expect(Object.keys(user).sort()).toEqual(["createdAt", "role", "username"]);
      expect(Number.isNaN(Date.parse(user["createdAt"] as string))).toBe(false);
    }
    expect(reply.text).not.toMatch(/password|\$2[aby]\$/);
  });

  it("creates with 201 {username, role, createdAt}; a duplicate is 409", async () => {
    const api = server();
    const body = { username: "Carol.d_1", password: "carol-password", role: "editor" };
    const created = await api.call("POST", "/api/v1/users", { token: admin, body });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      username: "Carol.d_1",
      role: "editor",
      createdAt: expect.any(String) as string,
    });
    const again = await api.call("POST", "/api/v1/users", { token: admin, body });
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
    const api = server();
    const reply = await api.call("POST", "/api/v1/users", { token: admin, body });
    expect(reply.status).toBe(400);
    expect((reply.json as { error: string }).error).toContain(field);
    expect(await userNames(api)).not.toContain("okname");
  });

  it("refuses malformed, oversize and non-JSON bodies with JSON errors", async () => {
    const api = server();
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
    expect(await userNames(api)).not.toContain("big");
  });

  it.each(["__proto__", "constructor"])("refuses a %s key naming it, and creates nothing", async (key) => {
    const api = server();
    const rawBody = `{"username":"proto-${key.length}","password":"long-enough","role":"viewer","${key}":{"prototype":{"x":1}}}`;
    const reply = await api.call("POST", "/api/v1/users", {
      token: admin,
      rawBody,
      headers: { "content-type": "application/json" },
    });
    expect(reply).toMatchObject({ status: 400, json: { error: `${key}: is not allowed as a key` } });
    expect(await userNames(api)).not.toContain(`proto-${key.length}`);
  });

  it("refuses passwords that are not valid Unicode, which would hash alike", async () => {
    const api = server();
    const lone = await api.call("POST", "/api/v1/users", {
      token: admin,
      body: { username: "surrogate", password: "\ud800abcdefgh", role: "viewer" },
    });
    expect(lone).toMatchObject({
      status: 400,
      json: { error: expect.stringMatching(/^password: /) as string },
    });
    expect(await userNames(api)).not.toContain("surrogate");
    // A user whose password is U+FFFD + "abcdefgh" cannot log in with another lone surrogate.
    await api.createUser(admin, "replacement", "viewer", "\ufffdabcdefgh");
    const other = await api.call("POST", "/api/v1/auth/login", {
      body: { username: "replacement", password: "\udc00abcdefgh" },
    });
    expect(other.status).toBe(401);
    await api.login("replacement", "\ufffdabcdefgh");
  });

  it("updates: empty body 400, unknown user 404, unknown field 400, password over 72 bytes 400", async () => {
    const api = server();
    const vi = await userWithRole(api, "viewer");
    const put = (name: string, body: unknown) =>
      api.call("PUT", `/api/v1/users/${name}`, { token: admin, body });
    expect((await put(vi.username, {})).json).toEqual({
      error: "must hold password, role or grants: there is nothing to change",
    });
    expect((await put("nobody", { role: "viewer" })).status).toBe(404);
    expect((await put(vi.username, { role: "viewer", username: "x" })).json).toEqual({
      error: "username: must match the path: users cannot be renamed",
    });
    expect((await put(vi.username, { role: "viewer", email: "x" })).json).toEqual({
      error: "email: is not a known field",
    });
    // GET, edit, PUT back: the read-only fields of the representation are accepted.
    const users = (await api.call("GET", "/api/v1/users", { token: admin })).json as { username: string }[];
    const own = users.find((u) => u.username === vi.username);
    expect((await put(vi.username, { ...own, role: "viewer" })).status).toBe(200);
    expect((await put(vi.username, { password: "€".repeat(25) })).json).toEqual({
      error: "password: must be at most 72 bytes of UTF-8",
    });
  });

  it("applies a role change at the next request", async () => {
    const api = server();
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
    const api = server();
    await api.createUser(admin, "leaver", "viewer");
    const session = await api.login("leaver", "leaver-password");
    expect(
      (await api.call("PUT", "/api/v1/users/leaver", { token: admin, body: { password: "reset-password" } }))
        .status,
    ).toBe(200);
    expect((await api.call("GET", "/api/v1/auth/me", { token: session })).status).toBe(401);
    const second = await api.login("leaver", "reset-password");
    expect((await api.call("DELETE", "/api/v1/users/leaver", { token: admin })).json).toEqual({
      message: "user leaver deleted",
    });
    expect((await api.call("GET", "/api/v1/auth/me", { token: second })).status).toBe(401);
  });

  it("deletes: not yourself (400), unknown (404); the last admin can be neither deleted nor demoted (409)", async () => {
    // Its own server: which admins exist must not depend on the other tests.
    await withOwnServer(backend, async (api) => {
      const own = await api.login("admin", ADMIN_PASSWORD);
      const other = await userWithRole(api, "admin");
      expect((await api.call("DELETE", "/api/v1/users/admin", { token: own })).json).toEqual({
        error: "cannot delete yourself",
      });
      expect((await api.call("DELETE", "/api/v1/users/nobody", { token: own })).status).toBe(404);
      // Demote the other admin, then the one left is protected.
      const demoted = await api.call("PUT", `/api/v1/users/${other.username}`, {
        token: own,
        body: { role: "viewer" },
      });
      expect(demoted.status).toBe(200);
      const demote = await api.call("PUT", "/api/v1/users/admin", { token: own, body: { role: "editor" } });
      expect(demote).toMatchObject({
        status: 409,
        json: { error: "user admin is the last admin and cannot be demoted" },
      });
      expect((await api.call("GET", "/api/v1/auth/me", { token: own })).json).toEqual({
        username: "admin",
        role: "admin",
      });
    });
  });

  it("stores grants (role none only with one), returns them, and lets only an admin set them", async () => {
    const api = server();
    const grants = [{ role: "editor", clusters: ["staging"], namespaces: ["shop", "shop-*"] }];
    const create = (username: string, body: Record<string, unknown>, token = admin) =>
      api.call("POST", "/api/v1/users", { token, body: { username, password: "long-enough", ...body } });
    const created = await create("team-ed", { role: "none", grants });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ username: "team-ed", role: "none", grants });
    const own = await api.login("team-ed", "long-enough");
    expect((await api.call("GET", "/api/v1/auth/me", { token: own })).json).toEqual({
      username: "team-ed",
      role: "none",
      grants,
    });
    // A grants-only user lists only their own account; a global role lists everyone.
    const listed = (await api.call("GET", "/api/v1/users", { token: own })).json as { username: string }[];
    expect(listed.map((u) => u.username)).toEqual(["team-ed"]);
    expect(await userNames(api)).toContain("admin");
    // Refusals name the field and change nothing.
    const refusals: [Record<string, unknown>, RegExp][] = [
      [{ role: "none" }, /role: "none" needs at least one grant/],
      [{ role: "none", grants: [] }, /role: "none" needs at least one grant/],
      [{ role: "viewer", grants: [{ role: "owner" }] }, /grants\.0\.role/],
      [{ role: "viewer", grants: [{ role: "viewer", namespaces: ["Shop"] }] }, /grants\.0\.namespaces\.0/],
      [{ role: "viewer", grants: [{ role: "viewer", clusters: [] }] }, /grants\[0\]\.clusters/],
    ];
    for (const [body, message] of refusals) {
      const reply = await create("refused-grants", body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect((reply.json as { error: string }).error).toMatch(message);
    }
    expect(await userNames(api)).not.toContain("refused-grants");
    // Only an admin sets grants, also on their own account; removing the last grant of "none" is 400.
    const self = await api.call("PUT", "/api/v1/users/team-ed", {
      token: own,
      body: { grants: [{ role: "admin" }] },
    });
    expect(self.status).toBe(403);
    const emptied = await api.call("PUT", "/api/v1/users/team-ed", { token: admin, body: { grants: [] } });
    expect(emptied.status).toBe(400);
    const regranted = await api.call("PUT", "/api/v1/users/team-ed", {
      token: admin,
      body: { role: "viewer", grants: [] },
    });
    expect(regranted.status, regranted.text).toBe(200);
    expect((await api.call("GET", "/api/v1/auth/me", { token: own })).json).toEqual({
      username: "team-ed",
      role: "viewer",
    });
  });

  it("creates a username requested concurrently exactly once", async () => {
    const api = server();
    const replies = await Promise.all(
      Array.from({ length: 12 }, () =>
        api.call("POST", "/api/v1/users", {
          token: admin,
          body: { username: "raced", password: "race-password", role: "viewer" },
        }),
      ),
    );
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 201).every((s) => s === 409)).toBe(true);
  });

  it("never leaves zero admins when two admins demote each other at once", async () => {
    // Its own database: here the two admins are the only ones.
    await withOwnServer(backend, async (pair) => {
      const first = await pair.login("admin", ADMIN_PASSWORD);
      await pair.createUser(first, "rival", "admin");
      const rival = await pair.login("rival", "rival-password");
      const replies = await Promise.all([
        pair.call("PUT", "/api/v1/users/rival", { token: first, body: { role: "viewer" } }),
        pair.call("PUT", "/api/v1/users/admin", { token: rival, body: { role: "viewer" } }),
      ]);
      // One wins; the other finds the last admin (409) or has already lost its role (403).
      expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
      expect(replies.every((r) => [200, 403, 409].includes(r.status))).toBe(true);
      const users = (await pair.call("GET", "/api/v1/users", { token: first })).json as { role: string }[];
      expect(users.filter((u) => u.role === "admin")).toHaveLength(1);
    });
  });
});
