/**
 * Refused logins in the audit log, aggregated (docs/api.md "Audit"): anyone may send logins, so
 * one row per refusal would let a stranger fill the database. Each source address gets one row
 * per hour, "N refused logins from A", written at its first refusal and updated with the count
 * after; past REFUSED_LOGIN_SOURCES_MAX addresses in an hour, the rest share one row. Password
 * logins and SSO callbacks (a forged state needs no provider) count apart. Storage is then
 * bounded whatever the attacker sends: 2 × (REFUSED_LOGIN_SOURCES_MAX + 1) rows per hour.
 */
import { randomBytes } from "node:crypto";
import { isoTime } from "../time.ts";
import type { NewAuditEvent } from "./event.ts";

export const REFUSED_LOGIN_WINDOW_MS = 60 * 60 * 1000;
export const REFUSED_LOGIN_SOURCES_MAX = 20;
/** The usernames a row names (the first ones tried); the count covers them all. */
export const REFUSED_LOGIN_USERNAMES_MAX = 10;

/** The row of the addresses past the first REFUSED_LOGIN_SOURCES_MAX of an hour. */
export const OTHER_SOURCES = "";

/** Password logins and single sign-on callbacks count in rows of their own. */
export type RefusalKind = "password" | "sso";

export interface RefusedLogins {
  /** The first refusal of the row: its actor, status and error stay the row's. */
  first: NewAuditEvent;
  /** The latest refusal's details ({status, error}). */
  last: Readonly<Record<string, unknown>>;
  source: string;
  refusals: number;
  /** Refusals by HTTP status ("401", "429", …). */
  statuses: Readonly<Record<string, number>>;
  usernames: readonly string[];
  lastAt: string;
}

export function windowOf(now: number): number {
  return Math.floor(now / REFUSED_LOGIN_WINDOW_MS) * REFUSED_LOGIN_WINDOW_MS;
}

/** The row a refusal from `source` counts in, given the sources that have rows this hour. */
export function refusalSource(
  rows: { has: (source: string) => boolean; readonly size: number },
  source: string,
): string {
  return rows.has(source) || rows.size < REFUSED_LOGIN_SOURCES_MAX ? source : OTHER_SOURCES;
}

/** A row with one more refusal (`event`, as it would be recorded alone). */
export function addRefusal(
  row: RefusedLogins | undefined,
  event: NewAuditEvent,
  source: string,
): RefusedLogins {
  const given = event.details["status"];
  const status = typeof given === "number" ? String(given) : "";
  const base = row ?? {
    first: event,
    last: event.details,
    source,
    refusals: 0,
    statuses: {},
    usernames: [],
    lastAt: event.timestamp,
  };
  const known = base.usernames.includes(event.actor) || base.usernames.length >= REFUSED_LOGIN_USERNAMES_MAX;
  return {
    ...base,
    refusals: base.refusals + 1,
    statuses: { ...base.statuses, [status]: (base.statuses[status] ?? 0) + 1 },
    usernames: known ? base.usernames : [...base.usernames, event.actor],
    last: event.details,
    lastAt: event.timestamp,
  };
}

/** The audit row of an aggregate: the first refusal's fields, with the count in details. */
export function refusedLoginsEvent(row: RefusedLogins): NewAuditEvent {
  const plural = row.refusals === 1 ? "" : "s";
  const from = row.source === OTHER_SOURCES ? "other addresses" : row.source;
  return {
    ...row.first,
    sourceIp: row.source,
    details: {
      ...row.first.details,
      summary: `${row.refusals} refused login${plural} from ${from}`,
      refusals: row.refusals,
      statuses: row.statuses,
      usernames: row.usernames,
      firstAt: row.first.timestamp,
      lastAt: row.lastAt,
      lastStatus: row.last["status"],
      lastError: row.last["error"],
    },
  };
}

interface Entry {
  row: RefusedLogins;
  writing: Promise<void> | undefined;
  again: Promise<void> | undefined;
}

/**
 * The hour's rows in memory, each written by key (insert, then replace its details): at most one
 * write per row in flight and one waiting, however many refusals arrive meanwhile, and the last
 * count always written. `boot` keeps a restarted server's rows apart from its predecessor's.
 */
export class RefusedLoginLog {
  #window = 0;
  readonly #rows = new Map<RefusalKind, Map<string, Entry>>();
  readonly #write: (event: NewAuditEvent, key: string) => Promise<void>;
  readonly #boot: string;

  constructor(write: (event: NewAuditEvent, key: string) => Promise<void>, boot: string) {
    this.#write = write;
    this.#boot = boot;
  }

  /** Counts the refusal `event` recorded at `now`; resolves once a write including it is done. */
  record(event: NewAuditEvent, now: number, kind: RefusalKind = "password"): Promise<void> {
    const window = windowOf(now);
    if (window !== this.#window) {
      this.#window = window;
      this.#rows.clear();
    }
    const rows = this.#rows.get(kind) ?? new Map<string, Entry>();
    this.#rows.set(kind, rows);
    const source = refusalSource(rows, event.sourceIp);
    let entry = rows.get(source);
    const row = addRefusal(entry?.row, event, source);
    if (entry === undefined) {
      entry = { row, writing: undefined, again: undefined };
      rows.set(source, entry);
    } else {
      entry.row = row;
    }
    const key = `refused-logins ${this.#boot} ${isoTime(window)} ${kind} ${source || "*"}`;
    return this.#flush(entry, key);
  }

  #flush(entry: Entry, key: string): Promise<void> {
    if (entry.writing !== undefined) {
      entry.again ??= entry.writing.then(
        () => this.#flushAgain(entry, key),
        () => this.#flushAgain(entry, key),
      );
      return entry.again;
    }
    entry.writing = this.#write(refusedLoginsEvent(entry.row), key).finally(() => {
      entry.writing = undefined;
    });
    return entry.writing;
  }

  #flushAgain(entry: Entry, key: string): Promise<void> {
    entry.again = undefined;
    return this.#flush(entry, key);
  }
}

const logs = new WeakMap<object, RefusedLoginLog>();

/** The server's one log of refused logins (`owner`: its context), shared by the routes that refuse. */
export function refusedLoginLog(owner: {
  audit: { upsert: (event: NewAuditEvent, key: string) => Promise<void> };
}): RefusedLoginLog {
  let log = logs.get(owner);
  if (log === undefined) {
    log = new RefusedLoginLog((event, key) => owner.audit.upsert(event, key), randomBytes(6).toString("hex"));
    logs.set(owner, log);
  }
  return log;
}
