// CONVENTIONS.md: test-only machinery (the local control plane and its exit hooks) never loads
// in a production command. Follows every static import from each command but `svc dev`.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../..");
const TESTING = join(ROOT, "packages/kube/src/testing");
const IMPORT = /^\s*(?:import|export)\s(?:[^;]*?\sfrom\s)?\s*["']([^"']+)["']/gm;

/** The file a specifier names, for relative and workspace (@svc/*) imports; undefined for npm packages. */
function resolveImport(from: string, specifier: string): string | undefined {
  if (specifier.startsWith(".")) return resolve(dirname(from), specifier);
  const workspace = /^@svc\/([^/]+)(\/.*)?$/.exec(specifier);
  if (workspace === null) return undefined;
  const packageDir = join(ROOT, "packages", workspace[1] ?? "");
  const { exports } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
    exports: Record<string, string>;
  };
  const target = exports[`.${workspace[2] ?? ""}`];
  return target === undefined ? undefined : join(packageDir, target);
}

function staticImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, "utf8").matchAll(IMPORT)) {
      const target = specifier === undefined ? undefined : resolveImport(file, specifier);
      if (target !== undefined) pending.push(target);
    }
  }
  return seen;
}

const commands = readdirSync(join(ROOT, "packages/cli/src/commands")).filter(
  (f) => f.endsWith(".ts") && f !== "dev.ts",
);

describe("@svc/kube/testing", () => {
  it("is reached from svc dev, so the walk does find it", () => {
    const files = staticImports(join(ROOT, "packages/cli/src/commands/dev.ts"));
    expect([...files].some((f) => f.startsWith(TESTING))).toBe(true);
  });

  it("is not loaded by @svc/kube, which the API server and the operator import", () => {
    const files = staticImports(join(ROOT, "packages/kube/src/index.ts"));
    expect(files.has(join(ROOT, "packages/kube/src/registry/cluster-registry.ts"))).toBe(true);
    expect([...files].filter((f) => f.startsWith(TESTING))).toEqual([]);
  });

  it.each(commands)("is not loaded by the production command %s", (command) => {
    const files = staticImports(join(ROOT, "packages/cli/src/commands", command));
    expect(files.size).toBeGreaterThan(1);
    expect([...files].filter((f) => f.startsWith(TESTING))).toEqual([]);
  });
});
