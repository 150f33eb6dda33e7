import { randomBytes } from "node:crypto";
import {
  accessView,
  isRole,
  NO_GLOBAL_ROLE,
  validateGrants,
  type Grant,
  type Role,
  type UserView,
} from "@svc/core";
import type { CompiledQuery, Transaction } from "kysely";
import type { NewAuditEvent } from "../audit/event.ts";
import { insertAuditEvent } from "../audit/store.ts";
import type { Store, Tables, UsersTable } from "../store/db.ts";

export interface StoredUser {
  username: string;
  /** The global role; undefined when the user's grants alone give access (REST role "none"). */
  role: Role | undefined;
  grants: Grant[];
  passwordHash: string;
  securityStamp: string;
  createdAt: string;
  /** Set for a single sign-on user, who has no password (docs/api.md "Single sign-on"). */
  ssoIdentity: string | undefined;
}

export function newSecurityStamp(): string {
  return randomBytes(16).toString("hex");
}

/** The column only ever receives what the API checked; anything else was edited by hand. */
function storedRole(row: { username: string; role: string }): Role | undefined {
  if (row.role === NO_GLOBAL_ROLE) return undefined;
  if (!isRole(row.role)) throw new Error(`user ${row.username} has an unknown role ${row.role}`);
  return row.role;
}

/** Grants are read on every request: each distinct JSON is checked once (a bounded cache). */
const checkedGrants = new Map<string, Grant[]>();
const CHECKED_GRANTS_MAX = 1000;

function storedGrants(row: { username: string; grants: string }): Grant[] {
  const known = checkedGrants.get(row.grants);
  if (known !== undefined) return known;
  const grants = validateGrants(JSON.parse(row.grants) as unknown);
  if (!grants.ok) throw new Error(`user ${row.username} has invalid grants in the database`);
  if (checkedGrants.size >= CHECKED_GRANTS_MAX) checkedGrants.clear();
  checkedGrants.set(row.grants, grants.value);
  return grants.value;
}

function toStoredUser(row: Tables["users"]): StoredUser {
  return {
    username: row.username,
    role: storedRole(row),
    grants: storedGrants(row),
    passwordHash: row.password_hash,
    securityStamp: row.security_stamp,
    createdAt: row.created_at,
    ssoIdentity: row.sso_identity ?? undefined,
  };
}

/** Users in SQL. Methods that must see a consistent set of admins run in one transaction. */
export class UsersRepo {
  readonly #store: Store;

  /**
   * The lookup every authenticated request makes, built and compiled once: only its parameter
   * changes (building it anew took a tenth of an authenticated request's time).
   */
  readonly #findQuery: CompiledQuery<UsersTable>;

  constructor(store: Store) {
    this.#store = store;
    this.#findQuery = store.db.selectFrom("users").selectAll().where("username", "=", "").compile();
  }

  async find(username: string): Promise<StoredUser | undefined> {
    const query: CompiledQuery<UsersTable> = { ...this.#findQuery, parameters: [username] };
    const { rows } = await this.#store.db.executeQuery(query);
    const row = rows[0];
    return row === undefined ? undefined : toStoredUser(row);
  }

  async count(): Promise<number> {
    const row = await this.#store.db
      .selectFrom("users")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Every user, ordered by username (a stable order, DESIGN.md §4 General). */
  async list(): Promise<UserView[]> {
    const rows = await this.#store.db
      .selectFrom("users")
      .select(["username", "role", "created_at", "grants"])
      .orderBy("username")
      .execute();
    return rows.map((r) => ({
      username: r.username,
      createdAt: r.created_at,
      ...accessView(storedRole(r), storedGrants(r)),
    }));
  }

  /**
   * Runs `work` in a transaction that sees the target user and the admins as they are, and
   * holds them still: PostgreSQL locks the admin rows and the target (FOR UPDATE); SQLite has
   * one writer at a time. So two admins deleting each other at once cannot leave zero admins.
   */
  async withUserState<T>(
    username: string,
    work: (state: { target: StoredUser | undefined; adminCount: number }, tx: UserWriter) => Promise<T>,
  ): Promise<T> {
    const lock = this.#store.kind === "postgres";
    return this.#store.db.transaction().execute(async (tx) => {
      const admins = await tx
        .selectFrom("users")
        .select("username")
        .where("role", "=", "admin")
        .$if(lock, (q) => q.forUpdate())
        .execute();
      const target = await tx
        .selectFrom("users")
        .selectAll()
        .where("username", "=", username)
        .$if(lock, (q) => q.forUpdate())
        .executeTakeFirst();
      return work(
        { target: target === undefined ? undefined : toStoredUser(target), adminCount: admins.length },
        new UserWriter(tx, username),
      );
    });
  }
}

/** The writes allowed inside `withUserState`, bound to its transaction and user. */
export class UserWriter {
  readonly #tx: Transaction<Tables>;
  readonly #username: string;

  constructor(tx: Transaction<Tables>, username: string) {
    this.#tx = tx;
    this.#username = username;
  }

  /** Applies the supplied changes; a new password renews the security stamp, which it returns. */
  async update(
    change: { role?: Role | typeof NO_GLOBAL_ROLE; grants?: readonly Grant[]; passwordHash?: string },
    now: string,
  ): Promise<string | undefined> {
    const securityStamp = change.passwordHash === undefined ? undefined : newSecurityStamp();
    await this.#tx
      .updateTable("users")
      .set({
        updated_at: now,
        ...(change.role === undefined ? {} : { role: change.role }),
        ...(change.grants === undefined ? {} : { grants: JSON.stringify(change.grants) }),
        ...(change.passwordHash === undefined ? {} : { password_hash: change.passwordHash }),
        ...(securityStamp === undefined ? {} : { security_stamp: securityStamp }),
      })
      .where("username", "=", this.#username)
      .execute();
    return securityStamp;
  }

  /** Records the change's audit event in the same transaction: both are kept, or neither. */
  async audit(event: NewAuditEvent): Promise<void> {
    await insertAuditEvent(this.#tx, event);
  }

  async delete(): Promise<void> {
    await this.#tx.deleteFrom("users").where("username", "=", this.#username).execute();
  }

  /** A single sign-on user has an identity and an empty password hash, which no password matches. */
  async insert(
    user: {
      role: Role | typeof NO_GLOBAL_ROLE;
      grants?: readonly Grant[];
      passwordHash: string;
      ssoIdentity?: string;
    },
    now: string,
  ): Promise<void> {
    await this.#tx
      .insertInto("users")
      .values({
        username: this.#username,
        role: user.role,
        password_hash: user.passwordHash,
        security_stamp: newSecurityStamp(),
        created_at: now,
        updated_at: now,
        sso_identity: user.ssoIdentity ?? null,
        grants: JSON.stringify(user.grants ?? []),
      })
      .execute();
  }
}
