import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject("postgresUrl") });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, empty database on the shared test server (postgres.global-setup.ts): its URL, and
 * `drop` to remove it (and end its connections) after the tests that used it.
 */
export async function testPostgresDatabase(
  prefix: string,
): Promise<{ url: string; drop: () => Promise<void>; terminateConnections: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(4).toString("hex")}`;
  await withAdmin((c) => c.query(`CREATE DATABASE "${name}"`));
  const url = new URL(inject("postgresUrl"));
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
    /** Ends every connection to the database, as a server restart or failover would. */
    terminateConnections: async () => {
      await withAdmin((c) =>
        c.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name]),
      );
    },
  };
}
