// Builds the dashboard app before any browser test serves it, as `make dashboard` does (the same
// target, so the same production build, whatever vitest's NODE_ENV=test; rebuilt only when its
// sources changed).
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";
import { unitTestsOnly } from "./support/projects.ts";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));

export default async function setup(project: TestProject): Promise<void> {
  if (unitTestsOnly(project)) return;
  await promisify(execFile)("make", ["--no-print-directory", "packages/dashboard/dist/.production"], {
    cwd: REPO_ROOT,
  });
}
