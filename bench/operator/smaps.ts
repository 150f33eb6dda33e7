// Where a process's resident memory is, from /proc/<pid>/smaps (Linux): for
// bench/operator/memory.ts --smaps. Each mapping goes to one class; the classes of anonymous
// memory are read from the mappings' shapes, as glibc and V8 make them:
//
// - glibc's brk heap ([heap]): the main arena, malloc's small allocations from the main thread;
// - glibc's per-thread arenas: 64 MiB-aligned reservations of 64 MiB (HEAP_MAX_SIZE), a
//   read-write part followed by an inaccessible one, malloc's allocations from other threads
//   (V8's platform workers: concurrent marking, compilation; libuv's thread pool);
// - thread stacks: 8 MiB read-write mappings (and their guard page);
// - 256 KiB-aligned mappings, sizes in 256 KiB: V8's heap pages and code range (V8 allocates
//   its pages at 256 KiB alignment; a large malloc is mmapped at a page, rarely at 256 KiB);
// - other anonymous mappings: large mallocs (over glibc's mmap threshold), ICU, the rest.
import { readFileSync } from "node:fs";

const MiB = 1024 * 1024;
const ARENA = 64 * MiB;
const V8_PAGE = 256 * 1024;

interface Mapping {
  start: number;
  end: number;
  perms: string;
  path: string;
  rssKb: number;
  anonKb: number;
}

export function readMappings(pid: number): Mapping[] {
  const mappings: Mapping[] = [];
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header !== null) {
      mappings.push({
        start: parseInt(header[1] ?? "0", 16),
        end: parseInt(header[2] ?? "0", 16),
        perms: header[3] ?? "",
        path: header[4] ?? "",
        rssKb: 0,
        anonKb: 0,
      });
      continue;
    }
    const field = /^(Rss|Anonymous):\s+(\d+) kB/.exec(line);
    const last = mappings.at(-1);
    if (field === null || last === undefined) continue;
    if (field[1] === "Rss") last.rssKb = Number(field[2]);
    else last.anonKb = Number(field[2]);
  }
  return mappings;
}

export interface SmapsSummary {
  /** Resident MB per class, with the number of mappings and their reserved size. */
  classes: Record<string, { rssMb: number; mappings: number; sizeMb: number }>;
  /** From smaps_rollup: all resident memory, its anonymous part and the rest (file-backed). */
  rollup: { rssMb: number; anonymousMb: number; fileMb: number };
}

export function summariseSmaps(pid: number): SmapsSummary {
  const mappings = readMappings(pid);
  const anonymous = (m: Mapping) => m.path === "" || m.path.startsWith("[anon");
  const classOf = new Map<Mapping, string>();
  // glibc arenas: a 64 MiB-aligned run of anonymous mappings adding up to exactly 64 MiB.
  for (let i = 0; i < mappings.length; i++) {
    const first = mappings[i] as Mapping;
    if (!anonymous(first) || first.start % ARENA !== 0) continue;
    let j = i;
    while (j + 1 < mappings.length && anonymous(mappings[j + 1] as Mapping)) {
      if ((mappings[j] as Mapping).end !== (mappings[j + 1] as Mapping).start) break;
      if ((mappings[j] as Mapping).end - first.start >= ARENA) break;
      j++;
    }
    if ((mappings[j] as Mapping).end - first.start !== ARENA) continue;
    for (let k = i; k <= j; k++) classOf.set(mappings[k] as Mapping, "glibc thread arenas (64 MiB)");
  }
  for (const m of mappings) {
    if (classOf.has(m)) continue;
    const size = m.end - m.start;
    let name: string;
    if (m.path === "[heap]") name = "glibc brk heap ([heap], main arena)";
    else if (m.path.startsWith("/") && /\/node$/.test(m.path)) name = "file: the node binary";
    else if (m.path.startsWith("/")) name = "file: libraries and other files";
    else if (!anonymous(m)) name = `other (${m.path})`;
    else if (m.perms.startsWith("rw") && size >= 8 * MiB && size <= 8 * MiB + 64 * 1024)
      name = "thread stacks (8 MiB)";
    else if (m.start % V8_PAGE === 0 && size % V8_PAGE === 0) name = "anon, 256 KiB-aligned (V8 heap, code)";
    else name = "anon, other (large mallocs, …)";
    classOf.set(m, name);
  }
  const classes: SmapsSummary["classes"] = {};
  for (const m of mappings) {
    const name = classOf.get(m) ?? "?";
    const c = (classes[name] ??= { rssMb: 0, mappings: 0, sizeMb: 0 });
    c.rssMb += m.rssKb / 1024;
    c.mappings++;
    c.sizeMb += (m.end - m.start) / MiB;
  }
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(rollup)?.[1] ?? NaN);
  const rssMb = kb("Rss") / 1024;
  const anonymousMb = kb("Anonymous") / 1024;
  return { classes, rollup: { rssMb, anonymousMb, fileMb: rssMb - anonymousMb } };
}

/** glibc's malloc_stats() output (as the process printed it): arenas and their totals, in MB. */
export function parseMallocStats(text: string): { arenas: number; systemMb: number; inUseMb: number } {
  const total = /Total \(incl\. mmap\):\s*system bytes\s*=\s*(\d+)\s*in use bytes\s*=\s*(\d+)/.exec(text);
  return {
    arenas: (text.match(/^Arena \d+:/gm) ?? []).length,
    systemMb: Number(total?.[1] ?? NaN) / MiB,
    inUseMb: Number(total?.[2] ?? NaN) / MiB,
  };
}
