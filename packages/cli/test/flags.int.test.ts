// `svc flags import` and `svc flags export` as processes, against a real API server and
// kube-apiserver: a flagd user's file comes back as a file flagd loads, answering bucket for bucket.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startClusterApi, type ClusterApi } from "../../api/test/support/cluster-api.ts";
import {
  answers,
  loadStrictly,
  migratedFlagdFile,
  sampleContexts,
} from "../../../test/support/flagd-files.ts";
import { testNamespace } from "../../../test/support/kube.ts";

const MAIN = resolve(import.meta.dirname, "../src/main.ts");

let env: ClusterApi;
let ns = "";
let dir = "";
let file = "";

beforeAll(async () => {
  env = await startClusterApi("cli-flags");
  ns = await testNamespace(env.kc, "cli-flags");
  dir = await mkdtemp(join(tmpdir(), "svc-cli-flags-"));
  file = join(dir, "flags.json");
  await writeFile(file, JSON.stringify(migratedFlagdFile, null, 2));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs `svc flags …` to its end (bounded) with the editor's token in SVC_TOKEN. */
async function svcFlags(args: string[]) {
  const child = spawn(process.execPath, [MAIN, "flags", ...args], {
    env: { PATH: process.env["PATH"] ?? "", SVC_TOKEN: env.tokens.editor },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const timeout = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const [code] = (await once(child, "exit")) as [number | null];
  clearTimeout(timeout);
  return { code, stdout, stderr };
}

const where = () => ["--namespace", ns, "--cluster", "local", "--server", env.api.url];

it("imports a flagd file, exports one flagd-core loads strictly, with the same answers for 1,000 targetingKeys", async () => {
  const dry = await svcFlags(["import", file, ...where(), "--selector", "app=shop", "--dry-run"]);
  expect(dry.code, dry.stderr).toBe(0);
  expect(dry.stdout).toContain("would create");
  const empty = await svcFlags(["export", ...where()]);
  expect(JSON.parse(empty.stdout)).toMatchObject({ flags: {} });

  const imported = await svcFlags(["import", file, ...where(), "--selector", "app=shop"]);
  expect(imported.code, imported.stderr).toBe(0);
  expect(imported.stdout).toMatch(
    new RegExp(`^created ${ns}/new-checkout-flag-[0-9a-f]{8} \\(key New\\.Checkout_Flag\\)$`, "m"),
  );
  expect(imported.stdout).toMatch(new RegExp(`^created ${ns}/max-items$`, "m"));

  const exported = await svcFlags(["export", ...where()]);
  expect(exported.code, exported.stderr).toBe(0);
  const original = loadStrictly(migratedFlagdFile);
  const roundTrip = loadStrictly(JSON.parse(exported.stdout));
  const buckets = new Set<string>();
  for (const context of sampleContexts(1000)) {
    const expected = answers(original, context);
    expect(answers(roundTrip, context)).toEqual(expected);
    buckets.add(JSON.stringify((expected["New.Checkout_Flag"] as { variant?: string }).variant));
  }
  expect(buckets).toEqual(new Set(['"on"', '"off"']));
});

it("exits 1 naming the refusal when a flag exists, and 2 on a bad command line", async () => {
  const other = await testNamespace(env.kc, "cli-flags-again");
  const into = [
    "--namespace",
    other,
    "--cluster",
    "local",
    "--server",
    env.api.url,
    "--selector",
    "app=shop",
  ];
  const first = await svcFlags(["import", file, ...into]);
  expect(first.code, first.stderr).toBe(0);
  const again = await svcFlags(["import", file, ...into]);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain("svc flags import: 409 nothing imported");
  const bad = await svcFlags(["import", file, ...where()]);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("--selector: is required");
});
