// Adopting what a run that died without its exit hooks (SIGKILL) left: each folder of the harness
// (a control plane's, a node's, a `svc dev` run's) carries an owner record; a later run removes
// the folders whose owner is gone, with whatever still runs from them (their components run in
// groups of their own and outlive a killed parent), is mounted in them or guards their port.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { unguardPort } from "./api-guard.ts";
import { isUnder, killAll, processesMatching } from "./host-commands.ts";
import { formatOwner, OWNER_FILE, ownerGone, parseOwner, startTicksOf } from "./leftovers.ts";
import { reclaimHost, unmountUnder } from "./node-host.ts";

/** The file in a control plane's folder naming the port its iptables guard protects. */
const GUARDED_PORT_FILE = "guarded-port";

function startTicksNow(pid: number): number | undefined {
  try {
    return startTicksOf(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

/** Records this process as the owner of `dir`. */
export function markOwner(dir: string): void {
  writeFileSync(
    join(dir, OWNER_FILE),
    formatOwner({ pid: process.pid, startTicks: startTicksNow(process.pid) ?? 0 }),
  );
}

/** Records that `dir`'s control plane guards `port` (for reclaimStale, should it die unannounced). */
export function recordGuardedPort(dir: string, port: number): void {
  writeFileSync(join(dir, GUARDED_PORT_FILE), `${port}\n`);
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** `dir` and its subfolders (a `svc dev` run holds its control planes' and node's folders). */
function withSubfolders(dir: string): string[] {
  const entries = readdirSync(dir, { withFileTypes: true });
  return [dir, ...entries.filter((e) => e.isDirectory()).map((e) => join(dir, e.name))];
}

/** Removes a dead run's folder and what it left; returns what could not be removed. */
function reclaimFolder(dir: string): string[] {
  // Its components first (they would re-create what is removed next), shims included.
  killAll(processesMatching((p) => isUnder(p.cwd, dir) || p.cmdline.includes(`${dir}/`)));
  reclaimHost();
  for (const folder of withSubfolders(dir)) {
    const port = Number(readOrEmpty(join(folder, GUARDED_PORT_FILE)));
    if (Number.isInteger(port) && port > 0) unguardPort(port);
  }
  unmountUnder(dir);
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}

/**
 * Removes the folders named `<prefix>*` in `parentDir` whose owner is gone, with what they left;
 * returns what could not be removed (one entry each).
 */
export function reclaimStale(parentDir: string, prefix: string): string[] {
  // Whether an owner lives is read from /proc: elsewhere (macOS) nothing is reclaimed.
  if (!existsSync(parentDir) || !existsSync("/proc/self/stat")) return [];
  const failures: string[] = [];
  for (const name of readdirSync(parentDir)) {
    if (!name.startsWith(prefix)) continue;
    const dir = join(parentDir, name);
    const owner = parseOwner(readOrEmpty(join(dir, OWNER_FILE)));
    if (ownerGone(owner, owner === undefined ? undefined : startTicksNow(owner.pid)))
      failures.push(...reclaimFolder(dir));
  }
  return failures;
}
