// What a V8 heap snapshot holds, by constructor: count and self size, largest first. Enough to
// see which objects dominate the operator's heap (bench/operator/memory.ts --snapshot DIR).
//
//   node bench/operator/heap-summary.ts FILE.heapsnapshot [--top 30]
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "30" } },
});
const file = positionals[0];
if (file === undefined) throw new Error("usage: heap-summary.ts FILE.heapsnapshot [--top 30]");
const heap = JSON.parse(await readFile(file, "utf8")) as Snapshot;
const fields = heap.snapshot.meta.node_fields;
const types = heap.snapshot.meta.node_types[0];
const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((f) => fields.indexOf(f));
const width = fields.length;
const groups = new Map<string, { count: number; bytes: number }>();
let total = 0;
for (let i = 0; i < heap.nodes.length; i += width) {
  const type = types[heap.nodes[i + (typeAt ?? 0)] ?? 0] ?? "?";
  const name = heap.strings[heap.nodes[i + (nameAt ?? 1)] ?? 0] ?? "?";
  const bytes = heap.nodes[i + (sizeAt ?? 3)] ?? 0;
  // Objects by constructor; strings, arrays, code and the rest by their type.
  const key = type === "object" || type === "closure" ? `${type} ${name}` : type;
  const group = groups.get(key) ?? { count: 0, bytes: 0 };
  group.count++;
  group.bytes += bytes;
  groups.set(key, group);
  total += bytes;
}
const top = [...groups].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, Number(values.top));
console.log(`total self size ${(total / 1024 / 1024).toFixed(1)} MB`);
console.log("| what | count | MB | bytes each |");
console.log("| ---- | ----- | -- | ---------- |");
for (const [key, { count, bytes }] of top)
  console.log(`| ${key} | ${count} | ${(bytes / 1024 / 1024).toFixed(1)} | ${Math.round(bytes / count)} |`);
