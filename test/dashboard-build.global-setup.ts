// Builds the dashboard app once per test run, before any browser test serves it: the tests check
// the production build, as `make dashboard` makes it.
import { fileURLToPath } from "node:url";
import { build } from "vite";

export default async function setup(): Promise<void> {
  await build({
    configFile: fileURLToPath(new URL("../packages/dashboard/vite.config.ts", import.meta.url)),
    logLevel: "warn",
  });
}
