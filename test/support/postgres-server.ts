// A throwaway PostgreSQL server from Debian's package, for tests and benchmarks: initdb into a
// temporary folder, listen on a free loopback port, remove everything on stop.
import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freeLoopbackPort } from "@svc/kube";
import { removeOnExit, superviseProcess } from "@svc/localkube";

export interface PostgresServer {
  /** Superuser URL of the `postgres` database. */
  url: string;
  stop: () => Promise<void>;
  /** SIGKILL (a crash); the data stays for start(). For fault tests. */
  kill: () => Promise<void>;
  /** Starts a killed server again on the same port and data, once it accepts connections. */
  start: () => Promise<void>;
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

/** Whether the server accepts a connection now. */
async function accepting(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * `durable`: commits reach the operating system before they are acknowledged, so that a killed
 * server loses none (fault tests); otherwise durability is traded for speed.
 */
export async function startPostgresServer({ durable = false } = {}): Promise<PostgresServer> {
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
  // Throwaway databases trade durability for speed (an OS crash is not what tests are about;
  // synchronous_commit=off would lose the last commits of a killed server, so durable keeps it).
  const settings = ["fsync=off", "full_page_writes=off", "max_connections=200"];
  if (!durable) settings.push("synchronous_commit=off");
  const launch = () =>
    superviseProcess({
      name: "postgres",
      command: join(bin, "postgres"),
      args: [
        "-D",
        data,
        "-h",
        "127.0.0.1",
        "-p",
        String(port),
        "-k",
        dir,
        ...settings.flatMap((s) => ["-c", s]),
      ],
      ...user,
    });
  let server = launch();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const keepDir = removeOnExit(dir);
  const stop = async () => {
    await server.stop({ signal: "SIGINT" }); // "fast" shutdown: ends sessions, exits cleanly
    rmSync(dir, { recursive: true, force: true });
    keepDir();
  };
  try {
    await server.waitReady(() => accepting(url), 30_000, 100);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    stop,
    kill: () => server.stop({ signal: "SIGKILL" }),
    async start() {
      if (server.running()) return;
      server = launch();
      await server.waitReady(() => accepting(url), 60_000, 100);
    },
  };
}
