// What `svc sidecar` loads to start: the sidecar runs on Bun in a small image, in every pod, so it
// must not pull in TypeBox (the API's schemas), client-node or undici through a core module it
// imports. A module-resolve hook records every file the real command loads before it stops on a
// kubeconfig that does not exist (after every static import is loaded).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";

const HOOK = `import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent(\`
import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.SVC_TEST_LOAD_LOG, resolved.url + "\\\\n");
  return resolved;
}\`));
`;

it("starts without TypeBox, client-node or undici", () => {
  const dir = mkdtempSync(join(tmpdir(), "sidecar-modules-"));
  const hook = join(dir, "hook.mjs");
  const log = join(dir, "loaded.txt");
  writeFileSync(hook, HOOK);
  writeFileSync(log, "");
  const run = spawnSync(
    process.execPath,
    ["--import", hook, join(import.meta.dirname, "../../cli/src/main.ts"), "sidecar"],
    {
      env: {
        PATH: process.env["PATH"],
        POD_NAMESPACE: "shop",
        KUBECONFIG: join(dir, "missing"),
        SVC_TEST_LOAD_LOG: log,
      },
      encoding: "utf8",
      timeout: 30_000,
    },
  );
  expect(run.stderr).toMatch(/^svc sidecar: cannot start: /);
  const loaded = readFileSync(log, "utf8")
    .split("\n")
    .filter((url) => url !== "");
  // The command really loaded the sidecar (the hook saw it), and nothing of the three.
  expect(loaded.some((url) => url.endsWith("/packages/sidecar/src/server.ts"))).toBe(true);
  expect(
    loaded.filter((url) => /\/node_modules\/(typebox|@kubernetes\/client-node|undici)\//.test(url)),
  ).toEqual([]);
});
