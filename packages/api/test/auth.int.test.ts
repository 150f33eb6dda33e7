// Logging in and out over real HTTP, on SQLite and on PostgreSQL.
import { describe, expect, it } from "vitest";
import { LOGIN_FAILURE_LIMIT } from "../src/auth/throttle.ts";
import {
  ADMIN_PASSWORD,
  BACKENDS,
  serverForSuite,
  TestApi,
  testConfig,
  userWithRole,
  withOwnServer,
} from "./support/harness.ts";

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
    // Grants beside (docs/access.md): this test is about the login itself.
    expect(body.user).toMatchObject({ username: "admin", role: "admin" });
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
      expect((await me(viewer)).json).toMatchObject({ username: expiring.username, role: "viewer" });
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

  it("lets no more than the limit of simultaneous wrong logins through, then refuses the right one", async () => {
    await withOwnServer(backend, async (api) => {
      const target = await userWithRole(api, "viewer");
      const replies = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          api.call("POST", "/api/v1/auth/login", {
            body: { username: target.username, password: `wrong-password-${i}` },
          }),
        ),
      );
      const statuses = replies.map((r) => r.status);
      expect(statuses.filter((s) => s !== 429).length).toBeLessThanOrEqual(LOGIN_FAILURE_LIMIT);
      expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
      const right = await api.call("POST", "/api/v1/auth/login", {
        body: { username: target.username, password: target.password },
      });
      expect(right.status).toBe(429);
      api.clock.offsetMs += 15 * 60 * 1000;
      await api.login(target.username, target.password);
    });
  });
});

describe("a flood of logins", () => {
  it("is refused with 503 and Retry-After beyond the hashing queue, and the server stays usable", async () => {
    const sqlite = BACKENDS[0];
    if (sqlite === undefined) throw new Error("no backend");
    const db = await sqlite.open();
    const api = await TestApi.start(testConfig(db.database), { hashing: { concurrency: 1, queueMax: 4 } });
    try {
      const flood = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          api.call("POST", "/api/v1/auth/login", {
            body: { username: `flood-${i}`, password: "guess-guess" },
          }),
        ),
      );
      const busy = flood.filter((r) => r.status === 503);
      expect(flood.every((r) => r.status === 401 || r.status === 503)).toBe(true);
      expect(busy.length).toBeGreaterThan(0);
      for (const reply of busy) {
        expect(Number(reply.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(reply.json).toEqual({ error: expect.any(String) as string });
      }
      // A user can still log in once the flood has passed.
      await api.login("admin", ADMIN_PASSWORD);
    } finally {
      await api.close();
      await db.remove();
    }
  });
});
