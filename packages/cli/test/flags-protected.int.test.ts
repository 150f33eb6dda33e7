// `svc flags` on a protected cluster (issue 37, item 4), as processes against a real API server
// and kube-apiserver: an editor's toggle is refused with where to make the change instead (a
// plan), an admin's goes through with --override-reason, which reaches the audit log as typed.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PROTECTED_CLUSTER_LABEL, type FlagView } from "@svc/core";
import { beforeAll, expect, inject, it } from "vitest";
import { validFlagSpec } from "../../../test/support/flag-cases.ts";
import { eventually, testNamespace } from "../../../test/support/kube.ts";
import { startClusterApi, type ClusterApi } from "../../api/test/support/cluster-api.ts";

const MAIN = resolve(import.meta.dirname, "../src/main.ts");

let env: ClusterApi;
let ns = "";

beforeAll(async () => {
  env = await startClusterApi("cli-protect");
  ns = await testNamespace(env.kc, "cli-protect");
  const register = await env.api.call("POST", "/api/v1/clusters", {
    token: env.tokens.admin,
    body: {
      id: "prod",
      displayName: "prod",
      apiServer: env.kc.getCurrentCluster()?.server,
      authMethod: "kubeconfig",
      kubeconfig: await readFile(inject("kubeconfigPath"), "utf8"),
      labels: { [PROTECTED_CLUSTER_LABEL]: "true" },
      namespaces: [ns],
    },
  });
  expect(register.status, register.text).toBe(201);
  const created = await env.api.call("POST", "/api/v1/flags", {
    token: env.tokens.admin,
    body: { ...validFlagSpec, name: "checkout", namespace: ns, clusterId: "local" },
  });
  expect(created.status, created.text).toBe(201);
  await eventually(
    () => Promise.resolve(env.registry.get("prod")?.flags.get(ns, "checkout")),
    (f) => f !== undefined,
    "checkout in prod",
  );
});

/** `svc flags …` as `token`'s user, to its end (bounded). */
async function svc(token: string, args: string[]) {
  const child = spawn(process.execPath, [MAIN, "flags", ...args], {
    env: { PATH: process.env["PATH"] ?? "", SVC_API_URL: env.api.url, SVC_TOKEN: token },
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

const enabled = async () =>
  (
    (await env.api.call("GET", `/api/v1/flags/${ns}/checkout?clusterId=prod`, { token: env.tokens.admin }))
      .json as FlagView
  ).enabled;

it("refuses an editor's toggle, pointing to a plan; an admin toggles with --override-reason, audited", async () => {
  const flag = `${ns}/checkout`;
  const editor = await svc(env.tokens.editor, ["toggle", flag, "-c", "prod", "--off"]);
  expect(editor.code, editor.stderr).toBe(1);
  expect(editor.stderr).toMatch(/403 cluster prod is protected: a direct toggle of flag .* is refused/);
  expect(editor.stderr).toContain(`svc flags rollout create ${flag}`);
  expect(await enabled()).toBe(true);

  const bare = await svc(env.tokens.admin, ["toggle", flag, "-c", "prod", "--off"]);
  expect(bare.code).toBe(1);
  expect(bare.stderr).toContain("X-Svc-Override-Reason");
  expect(await enabled()).toBe(true);

  const reason = "INC-88: Zahlungsausfall, abgeschaltet";
  const admin = await svc(env.tokens.admin, [
    "toggle",
    flag,
    "-c",
    "prod",
    "--off",
    "--override-reason",
    reason,
  ]);
  expect(admin.code, admin.stderr).toBe(0);
  expect(await enabled()).toBe(false);
  const audit = await env.api.call("GET", "/api/v1/audit?resource=flag&action=toggle&cluster=prod", {
    token: env.tokens.admin,
  });
  expect(audit.json).toMatchObject([
    { actor: "admin", outcome: "success", details: { overrideReason: reason } },
    { actor: "admin", outcome: "denied" },
    { actor: "ed", outcome: "denied" },
  ]);
});

it("imports a flagd file into a protected cluster only with an admin's --override-reason", async () => {
  const dir = await mkdtemp(join(tmpdir(), "svc-cli-protect-"));
  try {
    const file = join(dir, "flags.json");
    const flags = {
      imported: { state: "ENABLED", variants: { on: true, off: false }, defaultVariant: "on" },
    };
    await writeFile(file, JSON.stringify({ flags }));
    const args = ["import", file, "--namespace", ns, "--cluster", "prod", "--selector", "app=web"];
    const editor = await svc(env.tokens.editor, [...args, "--override-reason", "because"]);
    expect(editor.code).toBe(1);
    expect(editor.stderr).toContain("only an admin may override");
    const admin = await svc(env.tokens.admin, [...args, "--override-reason", "seeding prod after INC-88"]);
    expect(admin.code, admin.stderr).toBe(0);
    expect(admin.stdout).toBe(`created ${ns}/imported\n`);
    const misplaced = await svc(env.tokens.admin, [
      "export",
      "--namespace",
      ns,
      "--cluster",
      "prod",
      "--override-reason",
      "x",
    ]);
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toContain("--override-reason: is an option of import only");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
