// A throwaway PostgreSQL server from Debian's package, for tests and benchmarks: initdb into a
// temporary folder, listen on a free loopback port, remove everything on stop.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freeLoopbackPort } from "@svc/kube";

export interface PostgresServer {
  /** Superuser URL of the `postgres` database. */
  url: string;
  stop: () => Promise<void>;
}

/** The newest installed server's bin folder (`make postgres` installs one when there is none). */
function postgresBin(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const newest = versions[0];
  if (newest === undefined) throw new Error(`no PostgreSQL server under ${root}: run \`make postgres\``);
  return join(root, newest, "bin");
}

/** PostgreSQL refuses to run as root: then it runs as the `postgres` system user. */
function runAs(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const id = (flag: string) =>
    Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
  const uid = id("-u");
  const gid = id("-g");
  if (!Number.isInteger(uid) || uid <= 0) throw new Error("running as root, but there is no `postgres` user");
  return { uid, gid };
}

async function waitUntilAccepting(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`postgres exited with ${child.exitCode}:\n${log()}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline)
        throw new Error(`postgres did not accept connections in 30 s:\n${log()}`, { cause: error });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export async function startPostgresServer(): Promise<PostgresServer> {
  const bin = postgresBin();
  const user = runAs();
  const dir = mkdtempSync(join(tmpdir(), "svc-postgres-"));
  if (user !== undefined) chownSync(dir, user.uid, user.gid);
  const data = join(dir, "data");
  const init = spawnSync(
    join(bin, "initdb"),
    ["-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-sync"],
    { encoding: "utf8", timeout: 120_000, ...user },
  );
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${init.stderr}${init.error?.message ?? ""}`);
  }
  const port = await freeLoopbackPort();
  let output = "";
  // Durability settings off: a test database is thrown away, speed matters more.
  const child = spawn(
    join(bin, "postgres"),
    ["-D", data, "-h", "127.0.0.1", "-p", String(port), "-k", dir]
      .concat(["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"])
      .concat(["-c", "max_connections=200"]),
    { stdio: ["ignore", "pipe", "pipe"], ...user },
  );
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  // If the process that started it exits without stop(), the server must not outlive it.
  const killOnExit = () => {
    child.kill("SIGKILL");
  };
  process.once("exit", killOnExit);
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => {
      resolve();
    });
  });
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const stop = async () => {
    process.removeListener("exit", killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGINT"); // "fast" shutdown: ends sessions, exits cleanly
      const timeout = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timeout);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilAccepting(url, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}
