// What a V8 heap snapshot holds, by constructor: count and self size, largest first. Enough to
// see which objects dominate the operator's heap (bench/operator/memory.ts --snapshot DIR).
// With --baseline (a snapshot of the same operator holding fewer objects) it shows what grew,
// and with --objects the live heap per object added (issue 22: per cached workload).
//
//   node bench/operator/heap-summary.ts FILE.heapsnapshot [--top 30]
//        [--baseline EARLIER.heapsnapshot --objects N]
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

interface Group {
  count: number;
  bytes: number;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: "string", default: "30" },
    baseline: { type: "string" },
    objects: { type: "string" },
  },
});
const file = positionals[0];
if (file === undefined)
  throw new Error("usage: heap-summary.ts FILE.heapsnapshot [--top 30] [--baseline FILE --objects N]");

/** Self sizes by constructor (objects, closures) or by type (strings, arrays, code...). */
async function groupsOf(path: string): Promise<{ total: number; groups: Map<string, Group> }> {
  const heap = JSON.parse(await readFile(path, "utf8")) as Snapshot;
  const fields = heap.snapshot.meta.node_fields;
  const types = heap.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((f) => fields.indexOf(f));
  const width = fields.length;
  const groups = new Map<string, Group>();
  let total = 0;
  for (let i = 0; i < heap.nodes.length; i += width) {
    const type = types[heap.nodes[i + (typeAt ?? 0)] ?? 0] ?? "?";
    const name = heap.strings[heap.nodes[i + (nameAt ?? 1)] ?? 0] ?? "?";
    const bytes = heap.nodes[i + (sizeAt ?? 3)] ?? 0;
    const key = type === "object" || type === "closure" ? `${type} ${name}` : type;
    const group = groups.get(key) ?? { count: 0, bytes: 0 };
    group.count++;
    group.bytes += bytes;
    groups.set(key, group);
    total += bytes;
  }
  return { total, groups };
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const after = await groupsOf(file);
const before =
  values.baseline === undefined
    ? { total: 0, groups: new Map<string, Group>() }
    : await groupsOf(values.baseline);
const grown = [...after.groups].map(([key, group]): [string, Group] => {
  const was = before.groups.get(key) ?? { count: 0, bytes: 0 };
  return [key, { count: group.count - was.count, bytes: group.bytes - was.bytes }];
});
const top = grown.sort((a, b) => b[1].bytes - a[1].bytes).slice(0, Number(values.top));
console.log(`total self size ${mb(after.total)} MB`);
if (values.baseline !== undefined) {
  const growth = after.total - before.total;
  console.log(`baseline ${mb(before.total)} MB, grown by ${mb(growth)} MB`);
  if (values.objects !== undefined)
    console.log(`live heap per object added: ${Math.round(growth / Number(values.objects))} bytes`);
}
console.log("| what | count | MB | bytes each |");
console.log("| ---- | ----- | -- | ---------- |");
for (const [key, { count, bytes }] of top)
  console.log(`| ${key} | ${count} | ${mb(bytes)} | ${count === 0 ? "" : Math.round(bytes / count)} |`);
