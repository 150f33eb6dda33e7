// PostgreSQL ends the API server's pooled connections (a restart, a failover, an administrator):
// the server must neither crash nor stay broken.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testPostgresDatabase } from "../../../test/support/postgres.ts";
import { eventually } from "../../../test/support/kube.ts";
import { startPostgresServer, type PostgresServer } from "../../../test/support/postgres-server.ts";
import { databaseUnavailable, openStore, pingStore, type Store } from "../src/store/db.ts";
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

// A connection checked out when PostgreSQL crashes (a statement in flight, or between a
// transaction's statements) gets an `error` event that neither pg's pool nor Kysely listens to:
// unheard, it ended the whole process (the faults test's PostgreSQL step, `svc api` gone).
describe("PostgreSQL killed while connections are in use", () => {
  let server: PostgresServer;
  let store: Store;
  /** Errors no listener heard: each would have ended the process. */
  const unheard: unknown[] = [];
  const record = (error: unknown) => unheard.push(error);

  beforeAll(async () => {
    // Durable: a killed server keeps the schema the store has just migrated.
    server = await startPostgresServer({ durable: true });
    store = await openStore({ kind: "postgres", url: server.url });
    process.on("uncaughtException", record);
  });

  afterAll(async () => {
    process.off("uncaughtException", record);
    await store.close();
    await server.stop();
  });

  const reachable = () =>
    eventually(
      () =>
        pingStore(store).then(
          () => true,
          () => false,
        ),
      (ok) => ok,
      "the store to reach the restarted server",
      10_000,
    );

  it("survives a crash between a transaction's statements, told as an outage", async () => {
    const failure = await store.db
      .transaction()
      .execute(async (tx) => {
        await tx.selectFrom("users").select("username").execute();
        await server.kill();
        // The backend sees its postmaster gone and closes the connection this transaction holds.
        await sleep(500);
        await tx.selectFrom("users").select("username").execute();
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(unheard).toEqual([]);
    expect(failure, "the statement after the crash fails").toBeInstanceOf(Error);
    expect(databaseUnavailable(failure), String(failure)).toBe(true);
    await server.start();
    await reachable();
  });

  it("survives a crash under concurrent statements and transactions, each failure told as an outage", async () => {
    const failures: unknown[] = [];
    let on = true;
    const worker = async (i: number) => {
      while (on) {
        await (
          i % 2 === 0
            ? store.db.transaction().execute(async (tx) => {
                await tx.selectFrom("users").select("username").forUpdate().execute();
                await sleep(1);
                await tx.selectFrom("users").select("role").execute();
              })
            : store.db.selectFrom("users").selectAll().execute()
        ).catch((error: unknown) => failures.push(error));
        await sleep(1);
      }
    };
    const workers = Array.from({ length: 12 }, (_, i) => worker(i));
    await sleep(300);
    await server.kill();
    await sleep(1000);
    await server.start();
    await reachable();
    on = false;
    // No statement may hang: every worker finishes its last one.
    const settled = await Promise.race([
      Promise.all(workers).then(() => true),
      sleep(10_000).then(() => false),
    ]);
    expect(unheard).toEqual([]);
    expect(settled, "no statement left hanging").toBe(true);
    expect(failures.length, "statements met the crash").toBeGreaterThan(0);
    expect(failures.filter((e) => !databaseUnavailable(e)).map(String)).toEqual([]);
  });
});
