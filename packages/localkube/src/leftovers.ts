// Decisions about what an earlier run left on this machine, pure so that they are unit-tested:
// whose a folder is (an owner record: process id and start time, since process ids are reused),
// whether that owner is gone, and the one line that reports what could not be removed.

/** The process that made a folder: its id and its start time (clock ticks after boot, /proc/<pid>/stat). */
export interface Owner {
  pid: number;
  startTicks: number;
}

/** The name of the owner record in a folder of the harness (control plane, node, `svc dev` run). */
export const OWNER_FILE = "owner";

export function formatOwner(owner: Owner): string {
  return `${owner.pid} ${owner.startTicks}\n`;
}

/** The owner in a record, or undefined for anything else (a record being written, a foreign file). */
export function parseOwner(text: string): Owner | undefined {
  const match = /^(\d+) (\d+)\n?$/.exec(text);
  if (match === null) return undefined;
  return { pid: Number(match[1]), startTicks: Number(match[2]) };
}

/** A process's start time from its /proc/<pid>/stat line (field 22; the name in field 2 may hold spaces). */
export function startTicksOf(stat: string): number | undefined {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields after the name start at field 3 (state): field 22 is the 20th of them.
  const ticks = Number(fields[19]);
  return Number.isInteger(ticks) ? ticks : undefined;
}

/**
 * Whether a folder's owner is gone, so that its folder and whatever still runs or is mounted in
 * it may be removed: `startTicksNow` is the start time of the process with that id now
 * (undefined: no such process). A folder without a readable record is never stale: it may be
 * another run's, being made, or made by an older harness that wrote none.
 */
export function ownerGone(owner: Owner | undefined, startTicksNow: number | undefined): boolean {
  if (owner === undefined) return false;
  return startTicksNow !== owner.startTicks;
}

/** One line naming what could not be removed, or "" when everything was. */
export function describeFailures(failures: readonly string[]): string {
  if (failures.length === 0) return "";
  return `svc: could not remove (remove by hand): ${failures.join("; ")}`;
}
