import type { WebhookDeliveryState } from "@svc/core";
import { sql, type Selectable } from "kysely";
import type { Store, WebhookDeliveriesTable, WebhooksTable } from "../store/db.ts";
import { matches, type Subscription, type WebhookEvent, type WebhookEventType } from "./events.ts";
import type { WebhookFormat } from "./payload.ts";

/** A webhook as the API shows it: everything but its secret. */
export interface Webhook extends Subscription {
  id: string;
  name: string;
  url: string;
  format: WebhookFormat;
  updatedAt: string;
}

export type WebhookFields = Omit<Webhook, "id" | "createdAt" | "updatedAt" | "resumedAt">;

/** Outbox rows per INSERT: 9 parameters each, well under SQLite's 32,766 and PostgreSQL's 65,535. */
const ENQUEUE_ROWS_PER_STATEMENT = 500;

/** One row of a webhook's delivery log. */
export interface Delivery {
  id: number;
  eventId: string;
  eventType: string;
  state: WebhookDeliveryState;
  attempts: number;
  createdAt: string;
  nextAttemptAt: string;
  lastStatus: number | null;
  lastError: string;
  completedAt: string | null;
}

/** A row claimed for sending, with what signing it needs. */
export interface ClaimedDelivery {
  id: number;
  event: WebhookEvent;
  attempts: number;
  createdAt: string;
  url: string;
  secret: string;
  format: WebhookFormat;
}

function toWebhook(row: WebhooksTable): Webhook {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    format: row.format as WebhookFormat,
    enabled: row.enabled !== 0,
    events: JSON.parse(row.events) as WebhookEventType[],
    clusters: JSON.parse(row.clusters) as string[],
    namespaces: JSON.parse(row.namespaces) as string[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    resumedAt: row.resumed_at,
  };
}

function toDelivery(row: Selectable<WebhookDeliveriesTable>): Delivery {
  return {
    id: Number(row.id),
    eventId: row.event_id,
    eventType: row.event_type,
    state: row.state as WebhookDeliveryState,
    attempts: row.attempts,
    createdAt: row.created_at,
    nextAttemptAt: row.next_attempt_at,
    lastStatus: row.last_status,
    lastError: row.last_error,
    completedAt: row.completed_at,
  };
}

const columnsOf = (fields: WebhookFields) => ({
  name: fields.name,
  url: fields.url,
  format: fields.format,
  enabled: fields.enabled ? 1 : 0,
  events: JSON.stringify(fields.events),
  clusters: JSON.stringify(fields.clusters),
  namespaces: JSON.stringify(fields.namespaces),
});

/** The webhooks and their outbox, in the API's SQL store (SQLite or PostgreSQL). */
export class WebhooksRepo {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  async list(): Promise<Webhook[]> {
    const rows = await this.#store.db
      .selectFrom("webhooks")
      .selectAll()
      .orderBy("name")
      .orderBy("id")
      .execute();
    return rows.map(toWebhook);
  }

  async get(id: string): Promise<Webhook | undefined> {
    const row = await this.#store.db
      .selectFrom("webhooks")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirst();
    return row === undefined ? undefined : toWebhook(row);
  }

  async create(id: string, fields: WebhookFields, secret: string, now: string): Promise<Webhook> {
    const row = { id, ...columnsOf(fields), secret, created_at: now, updated_at: now, resumed_at: null };
    await this.#store.db.insertInto("webhooks").values(row).execute();
    return toWebhook(row);
  }

  /**
   * Replaces the fields (and the secret when given); undefined when there is no such webhook. A
   * paused webhook made active is resumed now (SET reads the row as it was, on both engines).
   */
  async update(id: string, fields: WebhookFields, secret: string | undefined, now: string) {
    const resumedAt = fields.enabled
      ? sql<string | null>`case when enabled = 0 then ${now} else resumed_at end`
      : sql<string | null>`resumed_at`;
    const result = await this.#store.db
      .updateTable("webhooks")
      .set({
        ...columnsOf(fields),
        ...(secret === undefined ? {} : { secret }),
        updated_at: now,
        resumed_at: resumedAt,
      })
      .where("id", "=", id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n ? this.get(id) : undefined;
  }

  /** Deletes the webhook and its outbox rows (nothing more is sent to it); false when unknown. */
  async delete(id: string): Promise<boolean> {
    return this.#store.db.transaction().execute(async (trx) => {
      await trx.deleteFrom("webhook_deliveries").where("webhook_id", "=", id).execute();
      const result = await trx.deleteFrom("webhooks").where("id", "=", id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    });
  }

  async secretOf(id: string): Promise<string | undefined> {
    const row = await this.#store.db
      .selectFrom("webhooks")
      .select("secret")
      .where("id", "=", id)
      .executeTakeFirst();
    return row?.secret;
  }

  /**
   * One outbox row per webhook each event matches, the webhooks read once for all the events (a
   * GitOps sync or an import brings hundreds at once). A row already there for an event id
   * (another replica's scan, a retried enqueue) is left alone: an event is enqueued once.
   * Returns how many rows are new.
   */
  async enqueue(events: readonly WebhookEvent[], now: string): Promise<number> {
    if (events.length === 0) return 0;
    const webhooks = await this.list();
    const rows = events.flatMap((event) =>
      webhooks
        .filter((webhook) => matches(webhook, event))
        .map((webhook) => ({
          webhook_id: webhook.id,
          event_id: event.id,
          event_type: event.type,
          event: JSON.stringify(event),
          state: "pending",
          attempts: 0,
          created_at: now,
          next_attempt_at: now,
          last_error: "",
        })),
    );
    let inserted = 0;
    // Statements of a bounded size: SQLite and PostgreSQL cap the parameters of one statement.
    for (let start = 0; start < rows.length; start += ENQUEUE_ROWS_PER_STATEMENT) {
      const result = await this.#store.db
        .insertInto("webhook_deliveries")
        .values(rows.slice(start, start + ENQUEUE_ROWS_PER_STATEMENT))
        .onConflict((oc) => oc.columns(["webhook_id", "event_id"]).doNothing())
        .executeTakeFirst();
      inserted += Number(result.numInsertedOrUpdatedRows ?? 0n);
    }
    return inserted;
  }

  /**
   * Takes up to `limit` due rows for `owner` until `leaseUntil`. One statement, so two replicas
   * never take one row: PostgreSQL skips rows another transaction is taking (FOR UPDATE SKIP
   * LOCKED), SQLite has one writer. A row whose holder died is taken again once its lease ends.
   * A paused webhook's rows are held (not taken) until it is resumed.
   */
  async claim(owner: string, now: string, leaseUntil: string, limit: number): Promise<ClaimedDelivery[]> {
    const db = this.#store.db;
    const due = db
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("state", "=", "pending")
      .where("next_attempt_at", "<=", now)
      .where("lease_until", "<=", now)
      .where("webhook_id", "in", db.selectFrom("webhooks").select("id").where("enabled", "=", 1))
      .orderBy("next_attempt_at")
      .limit(limit)
      .$if(this.#store.kind === "postgres", (q) => q.forUpdate().skipLocked());
    const claimed = await db
      .updateTable("webhook_deliveries")
      .set({ lease_owner: owner, lease_until: leaseUntil })
      .where("id", "in", due)
      .where("lease_until", "<=", now)
      .returning(["id", "webhook_id", "event", "attempts", "created_at"])
      .execute();
    if (claimed.length === 0) return [];
    const hooks = await db
      .selectFrom("webhooks")
      .select(["id", "url", "secret", "format"])
      .where("id", "in", [...new Set(claimed.map((row) => row.webhook_id))])
      .execute();
    return claimed.flatMap((row) => {
      const hook = hooks.find((h) => h.id === row.webhook_id);
      if (hook === undefined) return [];
      return [
        {
          id: Number(row.id),
          event: JSON.parse(row.event) as WebhookEvent,
          attempts: row.attempts,
          createdAt: row.created_at,
          url: hook.url,
          secret: hook.secret,
          format: hook.format as WebhookFormat,
        },
      ];
    });
  }

  /**
   * Records an attempt's outcome and releases the row; only while `owner` still holds it (a
   * holder whose lease ran out must not overwrite the next one's outcome). `retryAt` undefined
   * ends the row: delivered on success, failed otherwise.
   */
  async finish(
    id: number,
    owner: string,
    outcome: { ok: boolean; status: number | null; error: string },
    now: string,
    retryAt: string | undefined,
  ): Promise<void> {
    const done = outcome.ok || retryAt === undefined;
    await this.#store.db
      .updateTable("webhook_deliveries")
      .set((eb) => ({
        attempts: eb("attempts", "+", 1),
        state: outcome.ok ? "delivered" : retryAt === undefined ? "failed" : "pending",
        last_status: outcome.status,
        last_error: outcome.error,
        next_attempt_at: retryAt ?? now,
        completed_at: done ? now : null,
        lease_owner: "",
        lease_until: "",
      }))
      .where("id", "=", id)
      .where("lease_owner", "=", owner)
      .execute();
  }

  /** A webhook's delivery log, newest first, `limit` rows below `beforeId`. */
  async deliveries(webhookId: string, limit: number, beforeId?: number): Promise<Delivery[]> {
    const rows = await this.#store.db
      .selectFrom("webhook_deliveries")
      .selectAll()
      .where("webhook_id", "=", webhookId)
      .$if(beforeId !== undefined, (q) => q.where("id", "<", beforeId ?? 0))
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
    return rows.map(toDelivery);
  }

  /** Deletes finished rows older than `cutoff` (the audit's retention); returns how many. */
  async deleteFinishedBefore(cutoff: string): Promise<number> {
    const result = await this.#store.db
      .deleteFrom("webhook_deliveries")
      .where("state", "!=", "pending")
      .where(sql<string>`coalesce(completed_at, created_at)`, "<", cutoff)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
