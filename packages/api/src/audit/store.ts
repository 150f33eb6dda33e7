import { visibleEvents } from "./visibility.ts";
import type { AuditEventView, Page } from "@svc/core";
import type { AuditKey, AuditQuery } from "./query.ts";
import type { NewAuditEvent } from "./event.ts";
import type { Kysely, Transaction } from "kysely";
import type { AuditEventsTable, Store, Tables } from "../store/db.ts";

function toEvent(row: Omit<AuditEventsTable, "id"> & { id: number | string }): AuditEventView {
  return {
    id: Number(row.id),
    timestamp: row.timestamp,
    actor: row.actor,
    actorRole: row.actor_role,
    action: row.action as AuditEventView["action"],
    resource: row.resource as AuditEventView["resource"],
    resourceName: row.resource_name,
    namespace: row.namespace,
    cluster: row.cluster,
    outcome: row.outcome as AuditEventView["outcome"],
    sourceIp: row.source_ip,
    details: JSON.parse(row.details) as Record<string, unknown>,
  };
}

/** Writes one event; inside a change's transaction, the change and its event commit together. */
export async function insertAuditEvent(
  db: Kysely<Tables> | Transaction<Tables>,
  event: NewAuditEvent,
): Promise<void> {
  await db.insertInto("audit_events").values(auditRow(event)).execute();
}

function auditRow(event: NewAuditEvent) {
  return {
    timestamp: event.timestamp,
    actor: event.actor,
    actor_role: event.actorRole,
    action: event.action,
    resource: event.resource,
    resource_name: event.resourceName,
    namespace: event.namespace,
    cluster: event.cluster,
    outcome: event.outcome,
    source_ip: event.sourceIp,
    details: JSON.stringify(event.details),
  };
}

export class AuditRepo {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  async append(event: NewAuditEvent): Promise<void> {
    await insertAuditEvent(this.#store.db, event);
  }

  /** Records an event that other replicas may record too: the one with its key already there wins. */
  async appendOnce(event: NewAuditEvent, key: string): Promise<void> {
    await this.#store.db
      .insertInto("audit_events")
      .values({ ...auditRow(event), event_key: key })
      .onConflict((conflict) => conflict.column("event_key").doNothing())
      .execute();
  }

  /** Records the event under its key, or replaces the details of the one recorded under it. */
  async upsert(event: NewAuditEvent, key: string): Promise<void> {
    await this.#store.db
      .insertInto("audit_events")
      .values({ ...auditRow(event), event_key: key })
      .onConflict((conflict) =>
        conflict.column("event_key").doUpdateSet({ details: JSON.stringify(event.details) }),
      )
      .execute();
  }

  /** The events the query's filters select, unordered; a page's key bounds them when given. */
  #matching(query: AuditQuery, before?: AuditKey) {
    return this.#store.db
      .selectFrom("audit_events")
      .$if(query.resource !== undefined, (q) => q.where("resource", "=", query.resource ?? ""))
      .$if(query.action !== undefined, (q) => q.where("action", "=", query.action ?? ""))
      .$if(query.cluster !== undefined, (q) => q.where("cluster", "=", query.cluster ?? ""))
      .$if(query.namespace !== undefined, (q) => q.where("namespace", "=", query.namespace ?? ""))
      .$if(query.resourceName !== undefined, (q) => q.where("resource_name", "=", query.resourceName ?? ""))
      .$if(query.actor !== undefined, (q) => q.where("actor", "=", query.actor ?? ""))
      .$if(query.since !== undefined, (q) => q.where("timestamp", ">=", query.since ?? ""))
      .$if(query.until !== undefined, (q) => q.where("timestamp", "<", query.until ?? ""))
      .$if(query.beforeId !== undefined, (q) => q.where("id", "<", query.beforeId ?? 0))
      .$if(query.visibility?.all === false, (q) =>
        q.where((eb) =>
          query.visibility?.all === false ? visibleEvents(eb, query.visibility) : eb.lit(true),
        ),
      )
      .$if(before !== undefined, (q) =>
        q.where((eb) =>
          eb(eb.refTuple("timestamp", "id"), "<", eb.tuple(before?.[0] ?? "", before?.[1] ?? 0)),
        ),
      );
  }

  /** Newest first; ids increase with insertion, so `before` pages without gaps or repeats. */
  async list(query: AuditQuery): Promise<AuditEventView[]> {
    const rows = await this.#matching(query).selectAll().orderBy("id", "desc").limit(query.limit).execute();
    return rows.map(toEvent);
  }

  /**
   * One page newest first by (time, id), after the key of the page before: keyset paging in the
   * query itself (WHERE (timestamp, id) < key), so a page costs the same however deep, and events
   * written meanwhile (newer, so before the walk's position) never shift it. With the count of
   * the matching events after the page.
   */
  async page(query: AuditQuery, after: AuditKey | undefined): Promise<Page<AuditEventView>> {
    const rows = await this.#matching(query, after)
      .selectAll()
      .orderBy("timestamp", "desc")
      .orderBy("id", "desc")
      .limit(query.limit)
      .execute();
    const items = rows.map(toEvent);
    const last = items.at(-1);
    if (last === undefined) return { items, remainingItemCount: 0 };
    const key: AuditKey = [last.timestamp, last.id];
    const counted = await this.#matching(query, key)
      .select((eb) => eb.fn.countAll().as("remaining"))
      .executeTakeFirstOrThrow();
    const remainingItemCount = Number(counted.remaining);
    return remainingItemCount > 0 ? { items, after: key, remainingItemCount } : { items, remainingItemCount };
  }

  /** Deletes events older than `cutoff`; returns how many. */
  async deleteOlderThan(cutoff: string): Promise<number> {
    const result = await this.#store.db
      .deleteFrom("audit_events")
      .where("timestamp", "<", cutoff)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
