// PostgreSQL ends the API server's pooled connections (a restart, a failover, an administrator):
// the server must neither crash nor stay broken.
import { afterAll, beforeAll, expect, it } from "vitest";
import { testPostgresDatabase } from "../../../test/support/postgres.ts";
import { eventually } from "../../../test/support/kube.ts";
import { startPostgresServer } from "../../../test/support/postgres-server.ts";
import { ADMIN_PASSWORD, TestApi, testConfig } from "./support/harness.ts";

let api: TestApi;
let db: Awaited<ReturnType<typeof testPostgresDatabase>>;

beforeAll(async () => {
  db = await testPostgresDatabase("connloss");
  api = await TestApi.start(testConfig({ kind: "postgres", url: db.url }));
});

afterAll(async () => {
  await api.close();
  await db.drop();
});

it("keeps serving after PostgreSQL terminates its idle connections", async () => {
  const token = await api.login("admin", ADMIN_PASSWORD);
  await db.terminateConnections();
  // The pool learns of the loss asynchronously; a request may meet a dying connection once.
  await eventually(
    async () => (await api.call("GET", "/readyz")).status,
    (status) => status === 200,
    "the API to reach the database again",
    10_000,
  );
  const me = await api.call("GET", "/api/v1/auth/me", { token });
  expect(me.status).toBe(200);
  expect(me.json).toEqual({ username: "admin", role: "admin" });
});

it("answers 503 with Retry-After while PostgreSQL is down, and serves again once it is back", async () => {
  // Durable: a server started with asynchronous commits loses the last ones when killed, here
  // the schema and the admin the API has just written.
  const server = await startPostgresServer({ durable: true });
  const own = await TestApi.start(testConfig({ kind: "postgres", url: server.url }));
  try {
    const token = await own.login("admin", ADMIN_PASSWORD);
    await server.kill();
    const down = await own.call("GET", "/api/v1/users", { token });
    expect(down.status).toBe(503);
    expect(down.json).toEqual({ error: "the database is unavailable: try again shortly" });
    expect(down.headers.get("retry-after")).toBe("2");
    expect((await own.call("GET", "/readyz")).status).toBe(503);
    await server.start();
    await eventually(
      async () => (await own.call("GET", "/api/v1/users", { token })).status,
      (status) => status === 200,
      "the API to reach the restarted database",
      10_000,
    );
  } finally {
    await own.close();
    await server.stop();
  }
});
