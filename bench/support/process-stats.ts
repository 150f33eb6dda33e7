// What a process uses, read from /proc (Linux): for the benches and the load tests.
import { readFileSync } from "node:fs";

/** A process's resident memory: all of it, and its anonymous part (heap, stacks: not the binary's pages). */
export function memory(pid: number): { vmRssMb: number; rssAnonMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { vmRssMb: kb("VmRSS") / 1024, rssAnonMb: kb("RssAnon") / 1024 };
}

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
