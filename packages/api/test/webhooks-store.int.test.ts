// The webhook outbox on SQLite and on PostgreSQL: an event is enqueued once however often it is
// offered, two replicas never claim one row, a dead replica's rows come back after its lease,
// and a late holder cannot overwrite the next one's outcome.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../src/store/db.ts";
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
      a.enqueue(event("e-1"), T0),
      b.enqueue(event("e-1"), T0),
      a.enqueue(event("e-1"), T0),
    ]);
    expect(offered.reduce((sum, n) => sum + n, 0)).toBe(1);
    const log = await a.deliveries(shop.id, 10);
    expect(log.map((d) => [d.eventId, d.state, d.attempts])).toEqual([["e-1", "pending", 0]]);
    expect(await a.deliveries("w-other", 10)).toEqual([]);
    expect(await a.delete("w-shop")).toBe(true);
    expect(await a.delete("w-other")).toBe(true);
  });

  it("lets two replicas claim disjoint rows, and each row exactly once", async () => {
    const [a, b] = replicas;
    await a.create("w-claim", { ...fields, namespaces: [] }, "secret-secret-secret", T0);
    for (let i = 0; i < 60; i++) await a.enqueue(event(`c-${i}`), T0);
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
});
