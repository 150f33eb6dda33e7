// SPEC.md's Health, Authentication and Users sections, walked through the REST API.
import { expect } from "vitest";
import { callServer } from "../../../packages/api/test/support/harness.ts";
import { expectError, expectFields, expectJson, expectMessage, tokensByRole, type SpecApi } from "./api.ts";

export async function walkHealth(api: SpecApi): Promise<void> {
  const reply = await api.call("GET", "/healthz");
  expect(reply.status).toBe(200);
  expect(reply.headers.get("content-type")).toMatch(/^text\/plain/);
  expect(reply.text).toBe("ok");
}

/** Every endpoint but login and /healthz needs a token: none, a malformed or an unknown one → 401. */
export async function walkAuthRequired(api: SpecApi): Promise<void> {
  const unknownToken = "0".repeat(64);
  const endpoints = [
    ["POST", "/api/v1/auth/logout"],
    ["GET", "/api/v1/auth/me"],
    ["GET", "/api/v1/users"],
    ["POST", "/api/v1/users"],
    ["PUT", "/api/v1/users/admin"],
    ["DELETE", "/api/v1/users/admin"],
    ["GET", "/api/v1/flags"],
    ["POST", "/api/v1/flags"],
    ["GET", "/api/v1/flags/demo/new-checkout?clusterId=local"],
    ["PUT", "/api/v1/flags/demo/new-checkout?clusterId=local"],
    ["DELETE", "/api/v1/flags/demo/new-checkout?clusterId=local"],
    ["POST", "/api/v1/flags/demo/new-checkout/toggle?clusterId=local"],
    ["GET", "/api/v1/clusters"],
    ["POST", "/api/v1/clusters"],
    ["GET", "/api/v1/clusters/local"],
    ["DELETE", "/api/v1/clusters/local"],
    ["GET", "/api/v1/clusters/local/namespaces"],
    ["GET", "/api/v1/clusters/local/workloads"],
    ["GET", "/api/v1/clusters/local/workloads/demo/web"],
    ["GET", "/api/v1/audit"],
  ] as const;
  for (const [method, path] of endpoints)
    for (const token of [undefined, "not-a-token", unknownToken])
      expectError(await api.call(method, path, token), 401);
}

/** Whatever goes wrong, the body is {error}: an unknown route, a body that is not JSON. */
export async function walkErrorBodies(api: SpecApi, adminToken: string): Promise<void> {
  expectError(await api.call("GET", "/api/v1/no-such-route", adminToken), 404);
  const raw = (contentType: string, rawBody: string) =>
    callServer(api.url, "POST", "/api/v1/users", {
      token: adminToken,
      rawBody,
      headers: { "content-type": contentType },
    });
  expectError(await raw("application/json", '{"username": "spec-broken",'), 400);
  expectError(await raw("application/json", '["spec-array"]'), 400);
  // Not JSON at all: 415 (docs/api.md), a status SPEC.md's table does not list.
  expectError(await raw("text/plain", "username=spec-text"), 415);
}

export async function walkSessions(api: SpecApi, adminPassword: string): Promise<void> {
  const login = (body: unknown) => api.call("POST", "/api/v1/auth/login", undefined, body);
  expectError(await login({ username: "admin", password: "wrong-password" }), 401);
  expectError(await login({ username: "nobody-here", password: adminPassword }), 401);
  expectError(await login({ username: "admin" }), 400, /password/);
  expectError(await login({ password: adminPassword }), 400, /username/);

  const reply = await login({ username: "admin", password: adminPassword });
  const session = expectJson(reply, 200) as { token: string; user: unknown };
  expectFields(session, { token: "string", user: "object" });
  expect(session.token).toMatch(/^[0-9a-f]{64}$/i);
  expect(session.user).toEqual({ username: "admin", role: "admin" });

  const me = await api.call("GET", "/api/v1/auth/me", session.token);
  expect(expectJson(me, 200)).toEqual({ username: "admin", role: "admin" });

  // Logout ends the presented token only.
  const other = await api.login("admin", adminPassword);
  expect(other).not.toBe(session.token);
  expectMessage(await api.call("POST", "/api/v1/auth/logout", session.token));
  expectError(await api.call("GET", "/api/v1/auth/me", session.token), 401);
  expectError(await api.call("GET", "/api/v1/flags", session.token), 401);
  expectError(await api.call("POST", "/api/v1/auth/logout", session.token), 401);
  expect(expectJson(await api.call("GET", "/api/v1/auth/me", other), 200)).toEqual({
    username: "admin",
    role: "admin",
  });
}

export async function walkUsers(api: SpecApi, adminToken: string): Promise<void> {
  const tokens = await tokensByRole(api, adminToken, "spec-users");
  const list = async (token: string) => {
    const users = expectJson(await api.call("GET", "/api/v1/users", token), 200) as unknown[];
    expect(Array.isArray(users)).toBe(true);
    for (const user of users) {
      expectFields(user, { username: "string", role: "string", createdAt: "string" });
      const { createdAt } = user as { createdAt: string };
      expect(createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
      expect(user).not.toHaveProperty("password");
    }
    return users as { username: string; role: string }[];
  };
  // Every authenticated role lists users.
  for (const token of Object.values(tokens))
    expect((await list(token)).map((u) => [u.username, u.role])).toContainEqual([
      "spec-users-viewer",
      "viewer",
    ]);

  // Create: admin only, 201 {username, role}, never the password; duplicate → 409; bad role → 400.
  const user = { username: "spec-walker", password: "walker-password-1", role: "viewer" };
  for (const token of [tokens.editor, tokens.viewer])
    expectError(await api.call("POST", "/api/v1/users", token, user), 403);
  const created = await api.call("POST", "/api/v1/users", adminToken, user);
  expect(expectJson(created, 201)).toMatchObject({ username: "spec-walker", role: "viewer" });
  expect(created.text).not.toContain(user.password);
  expectError(await api.call("POST", "/api/v1/users", adminToken, user), 409);
  const badRole = { ...user, username: "spec-bad-role", role: "owner" };
  expectError(await api.call("POST", "/api/v1/users", adminToken, badRole), 400, /role/);
  expectError(
    await api.call("POST", "/api/v1/users", adminToken, { username: "spec-no-pw", role: "viewer" }),
    400,
  );
  expect((await list(adminToken)).map((u) => u.username)).not.toContain("spec-bad-role");

  // Update: a non-admin changes only their own password; only the supplied fields change.
  const walker = await api.login("spec-walker", user.password);
  const put = (token: string, name: string, body: unknown) =>
    api.call("PUT", `/api/v1/users/${name}`, token, body);
  expectError(await put(walker, "spec-walker", { role: "admin" }), 403);
  expectError(await put(walker, "spec-users-editor", { password: "stolen-password" }), 403);
  expectError(await put(tokens.editor, "spec-walker", { password: "stolen-password" }), 403);
  expectMessage(await put(walker, "spec-walker", { password: "walker-password-2" }));
  expectMessage(await put(tokens.editor, "spec-users-editor", { password: "editor-password-2" }));
  await api.login("spec-users-editor", "editor-password-2");
  expectError(
    await api.call("POST", "/api/v1/auth/login", undefined, {
      username: user.username,
      password: user.password,
    }),
    401,
  );
  const walker2 = await api.login("spec-walker", "walker-password-2");
  expect(expectJson(await api.call("GET", "/api/v1/auth/me", walker2), 200)).toEqual({
    username: "spec-walker",
    role: "viewer",
  });
  expectMessage(await put(adminToken, "spec-walker", { role: "editor" }));
  expect(expectJson(await api.call("GET", "/api/v1/auth/me", walker2), 200)).toEqual({
    username: "spec-walker",
    role: "editor",
  });
  await api.login("spec-walker", "walker-password-2"); // the role change kept the password
  expectError(await put(adminToken, "spec-walker", { role: "root" }), 400, /role/);
  expectError(await put(adminToken, "nobody-here", { role: "viewer" }), 404);

  // Delete: admin only, never oneself; the user and their sessions are gone.
  expectError(await api.call("DELETE", "/api/v1/users/spec-walker", tokens.editor), 403);
  expectError(await api.call("DELETE", "/api/v1/users/spec-users-editor", tokens.editor), 403);
  expectError(await api.call("DELETE", "/api/v1/users/admin", adminToken), 400);
  expectMessage(await api.call("DELETE", "/api/v1/users/spec-walker", adminToken));
  expectError(await api.call("DELETE", "/api/v1/users/spec-walker", adminToken), 404);
  expect((await list(adminToken)).map((u) => u.username)).not.toContain("spec-walker");
  expectError(await api.call("GET", "/api/v1/auth/me", walker2), 401);
  expectError(
    await api.call("POST", "/api/v1/auth/login", undefined, {
      username: "spec-walker",
      password: "walker-password-2",
    }),
    401,
  );
  // Write-only: no password (old or new) in any answer, the audit log of these changes included.
  const audit = await api.call("GET", "/api/v1/audit?resource=user", adminToken);
  expect(audit.status).toBe(200);
  expect(audit.text).toContain("spec-walker");
  for (const password of [user.password, "walker-password-2"]) expect(audit.text).not.toContain(password);
}
