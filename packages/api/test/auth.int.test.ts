// Logging in and out over real HTTP, on SQLite and on PostgreSQL.
import { describe, expect, it } from "vitest";
import { ADMIN_PASSWORD, BACKENDS, serverForSuite, userWithRole, withOwnServer } from "./support/harness.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(BACKENDS)("authentication on $name", (backend) => {
  const server = serverForSuite(backend);

  it("logs in with a 64-hex token, expiry and user; refuses a wrong password or user alike", async () => {
    const api = server();
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
    await withOwnServer(backend, async (api) => {
      const expiring = await userWithRole(api, "viewer");
      const loggedOut = await userWithRole(api, "editor");
      expect((await api.call("POST", "/api/v1/auth/logout", { token: loggedOut.token })).status).toBe(200);
      api.clock.offsetMs += DAY_MS + 1000;
      const viewer = await api.login(expiring.username, expiring.password);
      const me = (t: string | undefined) => api.call("GET", "/api/v1/auth/me", { token: t });
      expect((await me(expiring.token)).json).toEqual({ error: "token expired" });
      expect((await me(loggedOut.token)).json).toEqual({ error: "invalid or ended token" });
      expect((await me(undefined)).json).toEqual({ error: "missing bearer token: log in first" });
      expect((await me(viewer)).json).toEqual({ username: expiring.username, role: "viewer" });
    });
  });

  it("throttles a username after 10 failed logins with 429 and Retry-After", async () => {
    await withOwnServer(backend, async (api) => {
      const ed = await userWithRole(api, "editor");
      const vi = await userWithRole(api, "viewer");
      const attempt = (password: string) =>
        api.call("POST", "/api/v1/auth/login", { body: { username: ed.username, password } });
      for (let i = 0; i < 10; i++) expect((await attempt(`wrong-${i}-password`)).status).toBe(401);
      const throttled = await attempt(ed.password);
      expect(throttled.status).toBe(429);
      expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(throttled.json).toEqual({ error: expect.any(String) as string });
      // Other usernames are not affected; after the window the right password works again.
      await api.login(vi.username, vi.password);
      api.clock.offsetMs += 15 * 60 * 1000;
      await api.login(ed.username, ed.password);
      // Sessions opened before are unaffected (well within 24 h).
      expect((await api.call("GET", "/api/v1/auth/me", { token: ed.token })).status).toBe(200);
    });
  });
});
