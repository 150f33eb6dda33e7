// Commands and process look-ups on this machine for the harness's set-up and teardown;
// synchronous, so that they also run in an 'exit' hook, where a crashed run has no event loop left.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { listeningInodes, socketInode } from "./port-ownership.ts";

/** Runs a command, never throwing: whether it succeeded, and its output. */
export function quiet(command: string, args: readonly string[]): { ok: boolean; out: string } {
  const result = spawnSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  return { ok: result.status === 0, out: `${result.stdout}${result.stderr}` };
}

export interface ProcessView {
  pid: number;
  cmdline: string;
  cgroups: string;
  /** Its working folder ("" when unreadable). */
  cwd: string;
}

/** Process ids (other than this one) whose command line, cgroups and working folder pass `test`. */
export function processesMatching(test: (view: ProcessView) => boolean): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      const cgroups = readFileSync(`/proc/${entry}/cgroup`, "utf8");
      let cwd = "";
      try {
        cwd = readlinkSync(`/proc/${entry}/cwd`);
      } catch {
        // A zombie or a kernel thread has none.
      }
      if (test({ pid: Number(entry), cmdline, cgroups, cwd })) pids.push(Number(entry));
    } catch {
      // The process ended while being read.
    }
  }
  return pids;
}

export function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** Whether `path` is `dir` or inside it. */
export function isUnder(path: string, dir: string): boolean {
  return dir !== "" && (path === dir || path.startsWith(`${dir}/`));
}

/**
 * Whether process `pid` itself listens on TCP `port` (not merely someone on this machine). Where
 * /proc shows no TCP tables (not Linux), it cannot tell and answers true.
 */
export function listensOn(pid: number | undefined, port: number): boolean {
  if (!existsSync("/proc/self/net/tcp")) return true;
  if (pid === undefined) return false;
  const inodes = new Set<string>();
  for (const table of ["tcp", "tcp6"])
    for (const inode of listeningInodes(readOrEmpty(`/proc/${pid}/net/${table}`), port)) inodes.add(inode);
  if (inodes.size === 0) return false;
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return inodes.has(socketInode(readlinkSync(`/proc/${pid}/fd/${fd}`)) ?? "");
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
