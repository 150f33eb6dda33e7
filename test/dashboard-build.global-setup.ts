// Builds the dashboard app once per test run, before any browser test serves it: the tests check
// the production build, as `make dashboard` makes it.
import { fileURLToPath } from "node:url";
import { build } from "vite";
import type { TestProject } from "vitest/node";
import { unitTestsOnly } from "./support/projects.ts";

export default async function setup(project: TestProject): Promise<void> {
  if (unitTestsOnly(project)) return;
  await build({
    configFile: fileURLToPath(new URL("../packages/dashboard/vite.config.ts", import.meta.url)),
    logLevel: "warn",
  });
}
