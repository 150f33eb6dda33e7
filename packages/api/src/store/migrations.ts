import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseConfig } from "../config.ts";

function usersAndAudit(kind: DatabaseConfig["kind"]): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("users")
        .addColumn("username", "text", (c) => c.primaryKey())
        .addColumn("role", "text", (c) => c.notNull())
        .addColumn("password_hash", "text", (c) => c.notNull())
        .addColumn("security_stamp", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("audit_events")
        .addColumn("id", kind === "postgres" ? "bigserial" : "integer", (c) =>
          kind === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn("timestamp", "text", (c) => c.notNull())
        .addColumn("actor", "text", (c) => c.notNull())
        .addColumn("actor_role", "text", (c) => c.notNull())
        .addColumn("action", "text", (c) => c.notNull())
        .addColumn("resource", "text", (c) => c.notNull())
        .addColumn("resource_name", "text", (c) => c.notNull())
        .addColumn("namespace", "text", (c) => c.notNull())
        .addColumn("cluster", "text", (c) => c.notNull())
        .addColumn("outcome", "text", (c) => c.notNull())
        .addColumn("source_ip", "text", (c) => c.notNull())
        .addColumn("details", "text", (c) => c.notNull().defaultTo(sql`'{}'`))
        .execute();
      await db.schema.createIndex("audit_events_timestamp").on("audit_events").column("timestamp").execute();
    },
  };
}

// One resource's history (a flag's page) reads its own events, newest first, however many
// other events are newer.
const auditEventsByResource: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex("audit_events_resource")
      .on("audit_events")
      .columns(["resource_name", "resource", "namespace", "cluster", "id"])
      .execute();
  },
};

// Outbound webhooks and their outbox (docs/webhooks.md).
function webhooks(kind: DatabaseConfig["kind"]): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("webhooks")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("secret", "text", (c) => c.notNull())
        .addColumn("events", "text", (c) => c.notNull())
        .addColumn("clusters", "text", (c) => c.notNull())
        .addColumn("namespaces", "text", (c) => c.notNull())
        .addColumn("format", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("webhook_deliveries")
        .addColumn("id", kind === "postgres" ? "bigserial" : "integer", (c) =>
          kind === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn("webhook_id", "text", (c) => c.notNull())
        .addColumn("event_id", "text", (c) => c.notNull())
        .addColumn("event_type", "text", (c) => c.notNull())
        .addColumn("event", "text", (c) => c.notNull())
        .addColumn("state", "text", (c) => c.notNull())
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("next_attempt_at", "text", (c) => c.notNull())
        .addColumn("lease_owner", "text", (c) => c.notNull().defaultTo(""))
        .addColumn("lease_until", "text", (c) => c.notNull().defaultTo(""))
        .addColumn("last_status", "integer")
        .addColumn("last_error", "text", (c) => c.notNull().defaultTo(""))
        .addColumn("completed_at", "text")
        .addUniqueConstraint("webhook_deliveries_event", ["webhook_id", "event_id"])
        .execute();
      // The worker's poll: due pending rows, oldest first.
      await db.schema
        .createIndex("webhook_deliveries_due")
        .on("webhook_deliveries")
        .columns(["state", "next_attempt_at"])
        .execute();
      // A webhook's delivery log, newest first, paged by id.
      await db.schema
        .createIndex("webhook_deliveries_log")
        .on("webhook_deliveries")
        .columns(["webhook_id", "id"])
        .execute();
    },
  };
}

// Single sign-on users (docs/api.md "Single sign-on"): bound to their identity, no password.
const usersSsoIdentity: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("users").addColumn("sso_identity", "text").execute();
  },
};

// A webhook can be paused (docs/webhooks.md "Pausing"): 1 active, 0 paused. An integer on
// both engines (SQLite has no boolean); the webhooks there before stay active. resumed_at:
// when it was last resumed (null: never paused), so that what happened meanwhile stays unsent.
const webhooksEnabled: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("webhooks")
      .addColumn("enabled", "integer", (c) => c.notNull().defaultTo(1))
      .execute();
    await db.schema.alterTable("webhooks").addColumn("resumed_at", "text").execute();
  },
};

// An event recorded by every API replica that sees it (a FlagRollout's steps, docs/safe-changes.md)
// carries a key naming it for good: the unique index keeps one row. Null for the others.
const auditEventKeys: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("audit_events").addColumn("event_key", "text").execute();
    await db.schema.createIndex("audit_events_key").on("audit_events").column("event_key").unique().execute();
  },
};

// Scoped roles (docs/access.md): a user's grants as JSON; role "none" when grants alone give access.
const usersGrants: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("users")
      .addColumn("grants", "text", (c) => c.notNull().defaultTo(sql`'[]'`))
      .execute();
  },
};

/**
 * Schema history, applied in name order by Kysely's Migrator (which takes a lock, so two
 * replicas starting together migrate once). Never edit a released migration: add the next one.
 */
export function migrationsFor(kind: DatabaseConfig["kind"]): Record<string, Migration> {
  return {
    "0001_users_and_audit": usersAndAudit(kind),
    "0002_audit_events_by_resource": auditEventsByResource,
    "0005_webhooks": webhooks(kind),
    "0004_users_sso_identity": usersSsoIdentity,
    "0006_webhooks_enabled": webhooksEnabled,
    "0007_audit_event_keys": auditEventKeys,
    "0008_users_grants": usersGrants,
  };
}
