// The webhook outbox on SQLite and on PostgreSQL: an event is enqueued once however often it is
// offered, many events at once with one read of the webhooks, two replicas never claim one row,
// a dead replica's rows come back after its lease, and a late holder cannot overwrite the next
// one's outcome; a paused webhook gets no rows and its pending ones wait until it is resumed; a
// database from before pausing existed upgrades with its webhooks active.
import Database from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import { Migrator } from "kysely/migration";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openStore, type Store } from "../src/store/db.ts";
import { migrationsFor } from "../src/store/migrations.ts";
import type { WebhookEvent } from "../src/webhooks/events.ts";
import { WebhooksRepo } from "../src/webhooks/store.ts";
import { BACKENDS } from "./support/harness.ts";

/** The value, which the test just made sure exists. */
function defined<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("expected a value");
  return value;
}

const T0 = "2026-01-01T10:00:00.000Z";
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

const event = (id: string, namespace = "shop"): WebhookEvent => ({
  id,
  type: "flag.changed",
  occurredAt: at(1),
  cluster: "local",
  namespace,
  name: "checkout",
  actor: "alice",
  details: {},
});

const fields = {
  name: "ops",
  url: "https://hooks.example/x",
  events: ["flag.changed" as const],
  clusters: [],
  format: "json" as const,
  enabled: true,
};

describe.each(BACKENDS)("webhook outbox on $name", (backend) => {
  let stores: [Store, Store];
  let remove: () => Promise<void>;
  let replicas: [WebhooksRepo, WebhooksRepo];

  beforeAll(async () => {
    const db = await backend.open();
    remove = db.remove;
    stores = [await openStore(db.database), await openStore(db.database)];
    replicas = [new WebhooksRepo(stores[0]), new WebhooksRepo(stores[1])];
  });

  afterAll(async () => {
    for (const store of stores) await store.close();
    await remove();
  });

  it("enqueues an event once per matching webhook, however many replicas offer it", async () => {
    const [a, b] = replicas;
    const shop = await a.create("w-shop", { ...fields, namespaces: ["shop"] }, "secret-secret-secret", T0);
    await a.create("w-other", { ...fields, namespaces: ["other"] }, "secret-secret-secret", T0);
    const offered = await Promise.all([
      a.enqueue([event("e-1")], T0),
      b.enqueue([event("e-1")], T0),
      a.enqueue([event("e-1")], T0),
    ]);
    expect(offered.reduce((sum, n) => sum + n, 0)).toBe(1);
    const log = await a.deliveries(shop.id, 10);
    expect(log.map((d) => [d.eventId, d.state, d.attempts])).toEqual([["e-1", "pending", 0]]);
    expect(await a.deliveries("w-other", 10)).toEqual([]);
    expect(await a.delete("w-shop")).toBe(true);
    expect(await a.delete("w-other")).toBe(true);
  });

  it("enqueues a sync's worth of events with one read of the webhooks, each row once", async () => {
    const [a] = replicas;
    const bulk = await a.create("w-bulk", { ...fields, namespaces: ["bulk"] }, "secret-secret-secret", T0);
    const events = Array.from({ length: 1_200 }, (_, i) => event(`bulk-${i}`, "bulk"));
    const list = vi.spyOn(a, "list");
    try {
      // More rows than one statement holds: every one inserted, the webhooks read once.
      expect(await a.enqueue(events, T0)).toBe(1_200);
      expect(list).toHaveBeenCalledTimes(1);
    } finally {
      list.mockRestore();
    }
    expect(await a.enqueue(events.slice(0, 700), T0)).toBe(0);
    expect((await a.deliveries(bulk.id, 2_000)).length).toBe(1_200);
    expect(await a.delete("w-bulk")).toBe(true);
  });

  it("lets two replicas claim disjoint rows, and each row exactly once", async () => {
    const [a, b] = replicas;
    await a.create("w-claim", { ...fields, namespaces: [] }, "secret-secret-secret", T0);
    await a.enqueue(
      Array.from({ length: 60 }, (_, i) => event(`c-${i}`)),
      T0,
    );
    const now = at(10);
    const rounds = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a : b).claim(`owner-${i % 2}`, now, at(100), 10)),
    );
    const ids = rounds.flat().map((d) => d.event.id);
    expect(ids.length).toBe(60);
    expect(new Set(ids).size).toBe(60);
    expect(await a.claim("owner-0", now, at(100), 10)).toEqual([]);
    const first = defined(rounds.flat()[0]);
    expect(first.secret).toBe("secret-secret-secret");
    expect(first.url).toBe(fields.url);
  });

  it("takes a dead holder's row back after its lease, and ignores the late holder's outcome", async () => {
    const [a, b] = replicas;
    const log = async () => (await a.deliveries("w-claim", 100)).find((d) => d.eventId === "c-0");
    // Every c-* row is held by owner-0 or owner-1 until at(100): nobody else may take it before.
    expect(await b.claim("owner-2", at(99), at(200), 100)).toEqual([]);
    const retaken = await b.claim("owner-2", at(100), at(200), 100);
    expect(retaken.length).toBe(60);
    await a.finish(
      defined(retaken[0]).id,
      "owner-0",
      { ok: true, status: 200, error: "" },
      at(101),
      undefined,
    );
    await a.finish(
      defined(retaken[0]).id,
      "owner-1",
      { ok: true, status: 200, error: "" },
      at(101),
      undefined,
    );
    const row = (await a.deliveries("w-claim", 100)).find((d) => d.id === defined(retaken[0]).id);
    expect(row?.state).toBe("pending");
    // The holder records a failure with a retry time: pending again, due then, not before.
    const c0 = defined(retaken.find((d) => d.event.id === "c-0"));
    await b.finish(
      c0.id,
      "owner-2",
      { ok: false, status: 503, error: "the receiver answered 503" },
      at(101),
      at(130),
    );
    expect(await log()).toMatchObject({
      state: "pending",
      attempts: 1,
      lastStatus: 503,
      nextAttemptAt: at(130),
    });
    expect((await a.claim("owner-3", at(129), at(300), 100)).length).toBe(0);
    const again = await a.claim("owner-3", at(130), at(300), 100);
    expect(again.map((d) => [d.event.id, d.attempts])).toEqual([["c-0", 1]]);
    await a.finish(c0.id, "owner-3", { ok: true, status: 204, error: "" }, at(131), undefined);
    expect(await log()).toMatchObject({
      state: "delivered",
      attempts: 2,
      lastStatus: 204,
      completedAt: at(131),
    });
    // Finished rows go with the audit's retention; pending ones stay.
    expect(await a.deleteFinishedBefore(at(1000))).toBe(1);
    expect((await a.deliveries("w-claim", 100)).length).toBe(59);
  });

  it("enqueues nothing for a paused webhook, holds its pending rows, and sends them once resumed", async () => {
    const [a, b] = replicas;
    const hook = await a.create(
      "w-pause",
      { ...fields, events: ["flag.deleted" as const], namespaces: [] },
      "secret-secret-secret",
      T0,
    );
    expect(hook.enabled).toBe(true);
    const mine = (claimed: { event: { id: string } }[]) =>
      claimed.map((d) => d.event.id).filter((id) => id.startsWith("p-"));
    // Of a type no other test's webhook subscribes to.
    const deleted = (id: string): WebhookEvent => ({ ...event(id), type: "flag.deleted" });
    expect(await a.enqueue([deleted("p-before")], T0)).toBe(1);
    const paused = await a.update(
      hook.id,
      { ...fields, events: ["flag.deleted" as const], namespaces: [], enabled: false },
      undefined,
      at(2),
    );
    expect(paused?.enabled).toBe(false);
    expect((await b.get(hook.id))?.enabled).toBe(false);
    expect(await b.enqueue([deleted("p-during")], at(3))).toBe(0);
    // Held: due, unleased, yet neither replica takes it while the webhook is paused.
    expect(mine(await a.claim("owner-p", at(10), at(20), 100))).toEqual([]);
    expect(mine(await b.claim("owner-q", at(10), at(20), 100))).toEqual([]);
    await a.update(
      hook.id,
      { ...fields, events: ["flag.deleted" as const], namespaces: [], enabled: true },
      undefined,
      at(11),
    );
    expect((await a.get(hook.id))?.resumedAt).toBe(at(11));
    expect(mine(await b.claim("owner-q", at(12), at(22), 100))).toEqual(["p-before"]);
    // A change that happened while paused (a cache's sighting, enqueued after its grace period) is not sent.
    expect(await b.enqueue([deleted("p-seen-while-paused")], at(12))).toBe(0);
    expect(await b.enqueue([{ ...deleted("p-after"), occurredAt: at(12) }], at(12))).toBe(1);
    expect((await a.deliveries(hook.id, 10)).map((d) => d.eventId)).toEqual(["p-after", "p-before"]);
    expect(await a.delete(hook.id)).toBe(true);
  });

  it("upgrades a database of migration 0005 with its webhooks active", async () => {
    const db = await backend.open();
    const old = new Kysely<{ webhooks: Record<string, string> }>({
      dialect:
        db.database.kind === "sqlite"
          ? new SqliteDialect({ database: new Database(db.database.path) })
          : new PostgresDialect({ pool: new pg.Pool({ connectionString: db.database.url, max: 1 }) }),
    });
    const migrator = new Migrator({
      db: old,
      provider: { getMigrations: () => Promise.resolve(migrationsFor(db.database.kind)) },
    });
    expect((await migrator.migrateTo("0005_webhooks")).error).toBeUndefined();
    await old
      .insertInto("webhooks")
      .values({
        id: "w-old",
        name: "from before",
        url: fields.url,
        secret: "secret-secret-secret",
        events: JSON.stringify(fields.events),
        clusters: "[]",
        namespaces: "[]",
        format: "json",
        created_at: T0,
        updated_at: T0,
      })
      .execute();
    await old.destroy();
    const store = await openStore(db.database);
    try {
      const repo = new WebhooksRepo(store);
      expect(await repo.get("w-old")).toMatchObject({ id: "w-old", enabled: true, resumedAt: null });
      expect(await repo.enqueue([event("u-1")], at(1))).toBe(1);
    } finally {
      await store.close();
      await db.remove();
    }
  });
});
