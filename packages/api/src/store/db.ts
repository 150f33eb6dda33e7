import Database from "better-sqlite3";
import {
  Kysely,
  PostgresDialect,
  sql,
  SqliteDialect,
  type Generated,
  type SqliteDatabase,
  type SqliteStatement,
} from "kysely";
import { Migrator } from "kysely/migration";
import pg from "pg";
import type { DatabaseConfig } from "../config.ts";
import { migrationsFor } from "./migrations.ts";

export interface UsersTable {
  username: string;
  role: string;
  password_hash: string;
  /** Random, renewed with each password change: sessions opened before it are refused. */
  security_stamp: string;
  created_at: string;
  updated_at: string;
  /** `issuer subject` of a single sign-on user (who has no password); null for a password user. */
  sso_identity: string | null;
  /** The user's grants (core's Grant[]) as JSON; "[]" for a user with a global role only. */
  grants: string;
}

export interface AuditEventsTable {
  /** Integer on SQLite, bigint on PostgreSQL (which pg hands over as a string). */
  id: Generated<number | string>;
  /** ISO 8601 UTC with milliseconds: fixed width, so text order is time order on both engines. */
  timestamp: string;
  actor: string;
  actor_role: string;
  action: string;
  resource: string;
  resource_name: string;
  namespace: string;
  cluster: string;
  outcome: string;
  source_ip: string;
  /** JSON text. */
  details: string;
  /** Set on an event several replicas record (unique): null otherwise. */
  event_key?: string | null;
}

/** An admin's outbound webhook (docs/webhooks.md). */
export interface WebhooksTable {
  id: string;
  name: string;
  url: string;
  /** The HMAC key: kept to sign with, never returned after creation. */
  secret: string;
  /** JSON arrays of event types, cluster ids and namespaces (empty: all). */
  events: string;
  clusters: string;
  namespaces: string;
  format: string;
  /** 1: deliveries are enqueued and sent; 0: paused (nothing enqueued, pending rows held). */
  enabled: number;
  /** When it was last resumed; null when never paused. */
  resumed_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The outbox: one row per event and webhook, kept afterwards as the delivery log. */
export interface WebhookDeliveriesTable {
  id: Generated<number | string>;
  webhook_id: string;
  /** The idempotency key; unique per webhook, so an event enqueued twice is one row. */
  event_id: string;
  event_type: string;
  /** The event as JSON; the body is rendered from it at each attempt. */
  event: string;
  /** pending, delivered or failed (given up). */
  state: string;
  attempts: number;
  created_at: string;
  next_attempt_at: string;
  /** Who holds the row while sending it, and until when ("" when nobody). */
  lease_owner: Generated<string>;
  lease_until: Generated<string>;
  last_status: number | null;
  last_error: string;
  completed_at: string | null;
}

export interface Tables {
  users: UsersTable;
  audit_events: AuditEventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

export interface Store {
  db: Kysely<Tables>;
  kind: DatabaseConfig["kind"];
  close: () => Promise<void>;
}

/** Distinct SQL texts are few (queries vary by parameters, not by text): this bounds the cache anyway. */
const STATEMENT_CACHE_MAX = 500;

/**
 * A SQLite file as Kysely uses it, with prepared statements reused: Kysely prepares each query
 * anew, which was the largest cost of an authenticated request (bench/RESULTS.md).
 */
function openSqlite(path: string): SqliteDatabase {
  const file = new Database(path);
  // WAL lets readers run beside the writer; busy_timeout waits out a CLI writing.
  file.pragma("journal_mode = WAL");
  file.pragma("busy_timeout = 5000");
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => {
      file.close();
    },
    prepare: (sql) => {
      let statement = statements.get(sql);
      if (statement === undefined) {
        if (statements.size >= STATEMENT_CACHE_MAX) statements.clear();
        statement = file.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}

export interface StoreOptions {
  /**
   * Called when PostgreSQL closes an idle pooled connection (server restart, failover, an
   * administrator's termination). The pool drops that connection and opens a new one on next
   * use; without a listener the pool's error event would crash the process.
   */
  onConnectionError?: (error: Error) => void;
}

/** Opens the configured database and brings its schema to the latest migration. */
export async function openStore(config: DatabaseConfig, options: StoreOptions = {}): Promise<Store> {
  const db =
    config.kind === "sqlite"
      ? new Kysely<Tables>({
          dialect: new SqliteDialect({
            database: () => Promise.resolve(openSqlite(config.path)),
          }),
        })
      : new Kysely<Tables>({ dialect: new PostgresDialect({ pool: postgresPool(config.url, options) }) });
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migrationsFor(config.kind)) },
  });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) {
    await db.destroy();
    throw new Error(
      `database migration failed: ${error instanceof Error ? error.message : JSON.stringify(error)}`,
      {
        cause: error,
      },
    );
  }
  return { db, kind: config.kind, close: () => db.destroy() };
}

function postgresPool(url: string, options: StoreOptions): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on("error", (error) => options.onConnectionError?.(error));
  // pg also emits `error` on a client whose connection breaks while checked out (a statement in
  // flight, or between a transaction's statements); the pool listens only while a client is idle,
  // Kysely never, and an unheard `error` event ends the process: PostgreSQL killed at such a
  // moment took `svc api` down (the faults test's PostgreSQL step, 1 run in 12). Nothing is lost
  // by not acting here: the statement under way fails on its own, and the pool drops the client
  // when Kysely releases it.
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
  });
  return pool;
}

const UNREACHABLE_SOCKET = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);
// SQLSTATE 57P01–03: the server is shutting down, crashed, or not accepting connections yet.
const SERVER_GOING = new Set(["57P01", "57P02", "57P03"]);

/**
 * Whether an error says the database cannot be reached right now (down, restarting, failing
 * over, locked) rather than that a query is wrong: the request may succeed if retried, so the
 * client gets 503 instead of 500. Follows `cause` chains, as drivers and Kysely wrap errors.
 */
export function databaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = "code" in e && typeof e.code === "string" ? e.code : "";
    if (UNREACHABLE_SOCKET.has(code) || SERVER_GOING.has(code) || code.startsWith("08")) return true;
    if (code === "SQLITE_BUSY" || code === "SQLITE_LOCKED") return true;
    // pg's own messages for a connection lost mid-query or never opened carry no code, nor does
    // the one for a statement sent after its connection was lost (within a transaction).
    if (/^Connection terminated/.test(e.message)) return true;
    if (e.message === "Client has encountered a connection error and is not queryable") return true;
  }
  return false;
}

/** Readiness: one round trip to the database. */
export async function pingStore(store: Store): Promise<void> {
  await sql`select 1`.execute(store.db);
}

/** Whether an error is the database refusing a duplicate key. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE";
}
