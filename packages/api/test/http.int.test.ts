// The API server as an HTTP server, against clients that misbehave: slow or oversized requests,
// paths the router cannot take, foreign request ids, HEAD, and the headers every answer carries.
// Nothing here touches storage, so SQLite is enough.
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_PASSWORD, BACKENDS, TestApi, testConfig } from "./support/harness.ts";
import { parseRaw, rawExchange } from "./support/raw-http.ts";

const sqlite = BACKENDS[0];
if (sqlite?.name !== "sqlite") throw new Error("the first backend is SQLite");

/** Short timeouts, so that a test sees them fire; the defaults are in docs/api.md. */
const TIMEOUTS = { headersMs: 1000, requestMs: 2000 };

describe("the API server over HTTP", () => {
  let api: TestApi;
  let remove: () => Promise<void>;
  let admin = "";

  beforeAll(async () => {
    const db = await sqlite.open();
    remove = db.remove;
    api = await TestApi.start(testConfig(db.database), { timeouts: TIMEOUTS });
    admin = await api.login("admin", ADMIN_PASSWORD);
  });

  afterAll(async () => {
    await api.close();
    await remove();
  });

  it("answers 408 {error} and closes a connection whose headers do not arrive in time", async () => {
    const exchange = await rawExchange(api.url, "GET /healthz HTTP/1.1\r\nHost: x\r\n", {
      drip: "X-Slow: " + "a".repeat(100),
      dripMs: 200,
    });
    expect(exchange.closedByServer).toBe(true);
    const reply = parseRaw(exchange.response);
    expect(reply.status).toBe(408);
    expect(reply.json).toEqual({ error: expect.any(String) as string });
  });

  it("answers 408 and closes a connection whose body does not arrive in time", async () => {
    const body = JSON.stringify({ username: "admin", password: "x".repeat(40) });
    const head =
      "POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
      `Content-Length: ${body.length}\r\n\r\n`;
    const exchange = await rawExchange(api.url, head, { drip: body, dripMs: 200 });
    expect(exchange.closedByServer).toBe(true);
    expect(parseRaw(exchange.response).status).toBe(408);
  });

  it("answers 431 {error} to headers larger than 16 KiB", async () => {
    const exchange = await rawExchange(
      api.url,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    );
    const reply = parseRaw(exchange.response);
    expect(reply.status).toBe(431);
    expect(reply.json).toEqual({ error: "request headers are larger than 16 KiB" });
  });

  it.each([
    ["GET", "/api/v1/users/%", 400],
    ["GET", "/api/v1/users/%zz", 400],
    ["GET", "/api/v1/users/%ff", 400],
    ["DELETE", `/api/v1/users/${"a".repeat(254)}`, 414],
  ])("answers %s %s with %i and a JSON {error} only", async (method, path, status) => {
    const reply = await api.call(method, path, { token: admin });
    expect(reply.status).toBe(status);
    expect(reply.json).toEqual({ error: expect.any(String) as string });
    expect(reply.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("answers an HTTP/1.1 request without Host with 400 {error}", async () => {
    for (const base of [api.url, api.metricsUrl]) {
      const exchange = await rawExchange(base, "GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n");
      expect(parseRaw(exchange.response)).toMatchObject({
        status: 400,
        json: { error: "the Host header is required (HTTP/1.1)" },
      });
    }
  });

  it("takes path segments as long as a Kubernetes name (253 characters)", async () => {
    const reply = await api.call("DELETE", `/api/v1/users/${"a".repeat(253)}`, { token: admin });
    expect(reply).toMatchObject({ status: 404, json: { error: `user ${"a".repeat(253)} not found` } });
  });

  it("answers every error of the metrics port as JSON {error}", async () => {
    const missing = await fetch(`${api.metricsUrl}/nothing`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "no route GET /nothing" });
    const badUrl = await fetch(`${api.metricsUrl}/metrics/%ff`);
    expect(await badUrl.json()).toEqual({ error: expect.any(String) as string });
    const exchange = await rawExchange(
      api.metricsUrl,
      `GET /metrics HTTP/1.1\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    );
    expect(parseRaw(exchange.response)).toMatchObject({
      status: 431,
      json: { error: expect.any(String) as string },
    });
  });

  it("answers HEAD on every GET route as the GET would, without a body", async () => {
    const health = await api.call("HEAD", "/healthz");
    expect(health.status).toBe(200);
    expect(health.text).toBe("");
    expect((await api.call("HEAD", "/api/v1/users", { token: admin })).status).toBe(200);
    expect((await api.call("HEAD", "/api/v1/users")).status).toBe(401);
    expect((await api.call("HEAD", "/api/v1/audit", { token: admin })).headers.get("content-type")).toMatch(
      /^application\/json/,
    );
  });

  it("marks answers that carry tokens or user data as not to be stored or sniffed", async () => {
    const login = await api.call("POST", "/api/v1/auth/login", {
      body: { username: "admin", password: ADMIN_PASSWORD },
    });
    const users = await api.call("GET", "/api/v1/users", { token: admin });
    const refused = await api.call("GET", "/api/v1/users");
    for (const reply of [login, users, refused]) {
      expect(reply.headers.get("cache-control")).toBe("no-store");
      expect(reply.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  it("keeps CORS closed: no cross-origin read or preflight is allowed", async () => {
    const origin = { origin: "https://elsewhere.example" };
    const read = await api.call("GET", "/api/v1/users", { token: admin, headers: origin });
    expect(read.status).toBe(200);
    expect(read.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await api.call("OPTIONS", "/api/v1/users", {
      headers: { ...origin, "access-control-request-method": "POST" },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    expect(preflight.headers.get("access-control-allow-methods")).toBeNull();
  });

  it("echoes a client's X-Request-Id only when it is a short id of safe characters", async () => {
    const id = async (value: string) =>
      (await api.call("GET", "/healthz", { headers: { "x-request-id": value } })).headers.get("x-request-id");
    expect(await id("req-42.a_b:c")).toBe("req-42.a_b:c");
    for (const hostile of ['{"injected":true}', "a".repeat(12 * 1024), "two words", "ünïcode"]) {
      expect(await id(hostile)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
  });
});

it("answers a request that reaches it while it shuts down with 503 {error}", async () => {
  const db = await sqlite.open();
  const api = await TestApi.start(testConfig(db.database));
  try {
    // A login (a bcrypt comparison long) is in flight when the server starts closing; a second
    // request then arrives on the same connection.
    const login = JSON.stringify({ username: "admin", password: ADMIN_PASSWORD });
    // The server closes once the login has reached it (a fixed pause lost that race on a busy machine).
    const arrived = once(api.server.app.server, "request");
    const exchange = rawExchange(
      api.url,
      `POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${login.length}\r\n\r\n${login}`,
      { later: { afterMs: 60, text: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" } },
    );
    await arrived;
    const closed = api.close();
    const { response } = await exchange;
    await closed;
    const second = response.slice(response.indexOf("HTTP/1.1", 1));
    expect(response.startsWith("HTTP/1.1 200")).toBe(true);
    expect(parseRaw(second)).toMatchObject({ status: 503, json: { error: expect.any(String) as string } });
    expect(Object.keys(parseRaw(second).json as object)).toEqual(["error"]);
  } finally {
    await db.remove();
  }
});
