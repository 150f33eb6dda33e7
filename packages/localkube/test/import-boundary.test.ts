// CONVENTIONS.md: the local control plane and node (and their exit hooks) never load in a
// production command. Two guards: ESLint refuses the import in the production packages, and a walk
// of every static import from each entry point but `svc dev` finds no file of this package.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ESLint, Linter } from "eslint";
import { describe, expect, it } from "vitest";
import { importsOf, ROOT } from "../../../hack/import-graph.ts";

const LOCALKUBE = join(ROOT, "packages/localkube/src");

function staticImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    pending.push(...importsOf(file));
  }
  return seen;
}

const localkubeFiles = (files: Set<string>) => [...files].filter((f) => f.startsWith(LOCALKUBE));

const commands = readdirSync(join(ROOT, "packages/cli/src/commands")).filter(
  (f) => f.endsWith(".ts") && f !== "dev.ts",
);
const productionPackages = ["core", "kube", "api", "operator", "sidecar", "dashboard"];

describe("@svc/localkube's static imports", () => {
  it("is reached from svc dev, so the walk does find it", () => {
    const files = staticImports(join(ROOT, "packages/cli/src/commands/dev.ts"));
    expect(localkubeFiles(files).length).toBeGreaterThan(0);
  });

  it.each(productionPackages)("is not loaded by @svc/%s", (name) => {
    const files = staticImports(join(ROOT, "packages", name, "src/index.ts"));
    expect(files.size).toBeGreaterThan(1);
    expect(localkubeFiles(files)).toEqual([]);
  });

  it("is not loaded by @svc/kube, whose registry the API server and the operator import", () => {
    const files = staticImports(join(ROOT, "packages/kube/src/index.ts"));
    expect(files.has(join(ROOT, "packages/kube/src/registry/cluster-registry.ts"))).toBe(true);
  });

  it.each(commands)("is not loaded by the production command %s", (command) => {
    const files = staticImports(join(ROOT, "packages/cli/src/commands", command));
    expect(files.size).toBeGreaterThan(1);
    expect(localkubeFiles(files)).toEqual([]);
  });

  it("is not loaded by svc's entry point, which loads a command only when it runs", () => {
    const files = staticImports(join(ROOT, "packages/cli/src/main.ts"));
    expect(files.has(join(ROOT, "packages/cli/src/commands.ts"))).toBe(true);
    expect(localkubeFiles(files)).toEqual([]);
  });
});

describe("ESLint's no-restricted-imports of @svc/localkube", () => {
  const eslint = new ESLint({ cwd: ROOT });
  const importing = [
    'import { startLocalControlPlane } from "@svc/localkube";',
    'import { elsewhere } from "./elsewhere.ts";',
  ].join("\n");

  /** The messages of no-restricted-imports, as eslint.config.js configures it for `file`. */
  async function restrictedImports(file: string): Promise<string[]> {
    const config = (await eslint.calculateConfigForFile(join(ROOT, file))) as Linter.Config;
    const rule = config.rules?.["no-restricted-imports"];
    if (rule === undefined) return [];
    const messages = new Linter({ cwd: ROOT }).verify(
      importing,
      [{ files: ["**/*.ts", "**/*.tsx"], rules: { "no-restricted-imports": rule } }],
      { filename: join(ROOT, file) },
    );
    return messages.map((m) => `${m.ruleId ?? "parse"}: ${m.message}`);
  }

  it.each([
    "packages/core/src/index.ts",
    "packages/kube/src/index.ts",
    "packages/api/src/index.ts",
    "packages/operator/src/index.ts",
    "packages/sidecar/src/index.ts",
    "packages/dashboard/src/index.ts",
    "packages/dashboard/app/main.tsx",
    "packages/cli/src/main.ts",
    "packages/cli/src/commands/api.ts",
  ])("refuses it in %s", async (file) => {
    const messages = await restrictedImports(file);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/^no-restricted-imports: .*@svc\/localkube/);
  });

  it("keeps the dashboard app's other refusals (one config object there)", async () => {
    const config = (await eslint.calculateConfigForFile(
      join(ROOT, "packages/dashboard/app/main.tsx"),
    )) as Linter.Config;
    expect(JSON.stringify(config.rules?.["no-restricted-imports"])).toContain('"node:*"');
  });

  it.each([
    "packages/cli/src/commands/dev.ts",
    "packages/cli/src/dev/clusters.ts",
    "bench/support/local-node.ts",
    "test/control-plane.global-setup.ts",
    "packages/api/test/clusters.int.test.ts",
  ])("allows it in %s", async (file) => {
    expect(await restrictedImports(file)).toEqual([]);
  });
});
