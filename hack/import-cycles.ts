// Fails when the imports of packages/*/src (and the dashboard's app) form a cycle, type
// imports included: a cycle means two modules cannot be read, tested or moved one without the
// other (CONVENTIONS.md "No import cycles"). Part of `make check`.
//
//   node hack/import-cycles.ts
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { importsOf, ROOT } from "./import-graph.ts";

/** The cycles of a graph (its strongly connected components of more than one node, or a self-loop). */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(to) ?? 0));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node) ?? 0, index.get(to) ?? 0));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

function importGraph(root: string): Map<string, string[]> {
  const packages = join(root, "packages");
  const dirs = readdirSync(packages).flatMap((name) => [
    join(packages, name, "src"),
    join(packages, name, "app"),
  ]);
  const files = dirs.flatMap((dir) => {
    try {
      return sourceFiles(dir);
    } catch {
      return [];
    }
  });
  const graph = new Map<string, string[]>();
  for (const file of files) {
    graph.set(
      relative(root, file),
      importsOf(file).map((target) => relative(root, target)),
    );
  }
  return graph;
}

if (import.meta.main) {
  const cycles = importCycles(importGraph(ROOT));
  for (const cycle of cycles) process.stderr.write(`import cycle: ${cycle.join(" <-> ")}\n`);
  if (cycles.length > 0) process.exit(1);
  process.stdout.write("import cycles: none\n");
}
