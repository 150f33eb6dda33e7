// The plan verbs as processes (node packages/cli/src/main.ts flags rollout …) against a real API
// server and kube-apiserver, as a pipeline runs them: create → list → get → pause → abort, the
// API's 400 and 409 on stderr with exit 1 and 4, the plan file, promote, and watch following a
// status to its end (no operator runs here: the test writes the status as the operator would)
// and stopping on Ctrl-C. One more cluster, eu-1 (region=eu), is registered on the same control
// plane, scanning this file's namespace.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { API_GROUP, API_VERSION, FLAG_ROLLOUT, type FlagRolloutStatus } from "@svc/core";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { startClusterApi, type ClusterApi } from "../../api/test/support/cluster-api.ts";
import { eventually, testNamespace } from "../../../test/support/kube.ts";
import type { RolloutView } from "../src/flags/rollout-render.ts";

const MAIN = resolve(import.meta.dirname, "../src/main.ts");

let env: ClusterApi;
let ns = "";

/** `svc flags …` as a process, as the editor (SVC_TOKEN, as CI runs it); its output so far and its end. */
function start(args: string[], stdin = "") {
  const child = spawn(process.execPath, [MAIN, "flags", ...args], {
    env: { PATH: process.env["PATH"] ?? "", SVC_API_URL: env.api.url, SVC_TOKEN: env.tokens.editor },
  });
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (d: Buffer) => (output.stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output.stderr += d.toString()));
  child.stdin.end(stdin);
  const timeout = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const done = once(child, "exit").then(([code]) => {
    clearTimeout(timeout);
    return { code: code as number | null, ...output };
  });
  return { child, output, done };
}

const svc = (args: string[], stdin = "") => start(args, stdin).done;
/** A command line without quoting: its words. */
const words = (line: string) => line.split(" ");

/** The plan as the API shows it now (read directly, not through the CLI); undefined when absent. */
async function stored(name: string): Promise<RolloutView | undefined> {
  const reply = await env.api.call("GET", `/api/v1/rollouts/${name}`, { token: env.tokens.viewer });
  return reply.status === 200 ? (reply.json as RolloutView) : undefined;
}

/** What the operator would write: the plan's status, through the status subresource. */
async function operatorWrites(name: string, status: FlagRolloutStatus): Promise<void> {
  await env.kc.makeApiClient(CustomObjectsApi).patchNamespacedCustomObjectStatus(
    {
      group: API_GROUP,
      version: API_VERSION,
      namespace: env.systemNamespace,
      plural: FLAG_ROLLOUT.plural,
      name,
      body: { status },
    },
    setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
  );
}

/** A flag created in the local cluster, once eu-1 sees it too. */
async function newFlag(name: string, type: string, defaultValue: string): Promise<void> {
  const reply = await env.api.call("POST", "/api/v1/flags", {
    token: env.tokens.admin,
    body: {
      name,
      namespace: ns,
      clusterId: "local",
      type,
      defaultValue,
      delivery: { sidecar: { selector: { matchLabels: { app: "none" } } } },
    },
  });
  expect(reply.status, reply.text).toBe(201);
  await eventually(
    () => Promise.resolve(env.registry.get("eu-1")?.flags.get(ns, name)),
    (flag) => flag !== undefined,
    `${name} in eu-1`,
  );
}

beforeAll(async () => {
  env = await startClusterApi("cli-rollouts");
  ns = await testNamespace(env.kc, "cli-rollouts");
  const reply = await env.api.call("POST", "/api/v1/clusters", {
    token: env.tokens.admin,
    body: {
      id: "eu-1",
      displayName: "eu-1",
      apiServer: env.kc.getCurrentCluster()?.server,
      authMethod: "kubeconfig",
      kubeconfig: await readFile(inject("kubeconfigPath"), "utf8"),
      labels: { region: "eu" },
      namespaces: [ns],
    },
  });
  expect(reply.status, reply.text).toBe(201);
  // A flag per test, so that each stands alone (one plan per flag at a time).
  await Promise.all([
    newFlag("checkout", "boolean", "true"),
    newFlag("threshold", "integer", "10"),
    newFlag("limit", "integer", "10"),
    newFlag("quota", "integer", "10"),
    newFlag("retries", "integer", "3"),
  ]);
});

describe("svc flags rollout", () => {
  it("creates → lists → gets → pauses → aborts a plan; the API's 409 and 400 on stderr, exit 4 and 1", async () => {
    const created = await svc(
      words(
        `rollout create ${ns}/checkout --value false --wave local:30 --wave region=eu:60 --name checkout-eu`,
      ),
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(
      new RegExp(`^checkout-eu +${ns}/checkout +defaultValue="false" +Pending +2 +- +ed `, "m"),
    );
    expect((await stored("checkout-eu"))?.spec).toMatchObject({
      flag: { namespace: ns, name: "checkout" },
      change: { defaultValue: "false" },
      waves: [
        { clusters: ["local"], bakeSeconds: 30 },
        { clusterSelector: { matchLabels: { region: "eu" } }, bakeSeconds: 60 },
      ],
    });

    const listed = await svc(["rollout", "list", "--flag", `${ns}/checkout`, "-o", "json"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as RolloutView[]).map((p) => p.name)).toEqual(["checkout-eu"]);
    const none = await svc(["rollout", "list", "--flag", `${ns}/checkout`, "--phase", "Succeeded"]);
    expect(none.stdout).toBe("no plans\n");

    const got = await svc(["rollout", "get", "checkout-eu"]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toContain(`flag:     ${ns}/checkout\n`);
    expect(got.stdout).toMatch(/^created: +\S+ by ed$/m);
    expect(got.stdout).toContain("phase:    Pending\n");
    expect(got.stdout).toContain("  wave 0  Pending  local, bake 30s\n");
    expect(got.stdout).toContain("  wave 1  Pending  clusters with region=eu, bake 60s\n");

    const paused = await svc(["rollout", "pause", "checkout-eu"]);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout).toContain("Pending (pause asked)");
    expect((await stored("checkout-eu"))?.spec.paused).toBe(true);

    const aborted = await svc(["rollout", "abort", "checkout-eu", "-o", "json"]);
    expect(aborted.code, aborted.stderr).toBe(0);
    expect((JSON.parse(aborted.stdout) as RolloutView).spec.abort).toBe(true);
    expect((await stored("checkout-eu"))?.spec.abort).toBe(true);

    // One plan per flag at a time; an unfinished plan is not deleted: 409, exit 4.
    const second = await svc(["rollout", "create", `${ns}/checkout`, "--enabled", "false", "--wave", "eu-1"]);
    expect(second.code).toBe(4);
    expect(second.stdout).toBe("");
    expect(second.stderr).toBe(
      `svc flags rollout create: 409 plan checkout-eu of flag ${ns}/checkout is unfinished (Pending); one plan per flag at a time\n`,
    );
    const deleted = await svc(["rollout", "delete", "checkout-eu"]);
    expect(deleted.code).toBe(4);
    expect(deleted.stderr).toContain("409 plan checkout-eu is unfinished (Pending): abort it first");

    // The API's 400 names the field: exit 1, nothing created.
    const unknown = await svc(words(`rollout create ${ns}/threshold --value 5 --wave nowhere:10`));
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      "svc flags rollout create: 400 waves.0.clusters: no cluster nowhere is registered\n",
    );
    const badValue = await svc(["rollout", "create", `${ns}/threshold`, "--value", "ten", "--wave", "local"]);
    expect(badValue.code).toBe(1);
    expect(badValue.stderr).toContain("400 change.defaultValue: ");
    expect(badValue.stderr).toContain("(in cluster local)");
    // A bad --wave is bad usage: exit 2, no request.
    const badWave = await svc(["rollout", "create", `${ns}/threshold`, "--value", "5", "--wave", "local:5m"]);
    expect(badWave.code).toBe(2);
    expect(badWave.stderr).toContain('--wave: "local:5m" has bake "5m": it must be whole seconds');
    const refused = await svc(["rollout", "list", "--flag", `${ns}/threshold`]);
    expect(refused.stdout).toBe("no plans\n");

    const missing = await svc(["rollout", "get", "no-such-plan"]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain("404");
  });

  it("creates a plan from a file (or stdin), refuses a bad one naming the field, and deletes a finished plan", async () => {
    const file = `
name: limit-eu
flag: { namespace: ${ns}, name: limit }
change: { defaultValue: 20 }
waves:
  - clusters: [eu-1]
    bakeSeconds: 0
`;
    const bad = await svc(
      ["rollout", "create", "-f", "-"],
      file.replace("bakeSeconds: 0", "bakeSeconds: -1"),
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^-: waves\.0\.bakeSeconds: /m);
    expect(await stored("limit-eu")).toBeUndefined();

    const created = await svc(["rollout", "create", "-f", "-", "-o", "yaml"], file);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain("name: limit-eu\n");
    expect((await stored("limit-eu"))?.spec.change).toEqual({ defaultValue: "20" });

    await operatorWrites("limit-eu", { phase: "Succeeded" });
    const deleted = await svc(["rollout", "delete", "limit-eu"]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe("plan limit-eu deleted\n");
    expect(await stored("limit-eu")).toBeUndefined();
  });

  it("promotes a flag's value from one cluster to others; watch follows the plan to its end", async () => {
    const promoted = await svc(
      words(`promote ${ns}/quota --from local --wave eu-1:0 --name quota-promoted -o json`),
    );
    expect(promoted.code, promoted.stderr).toBe(0);
    expect((JSON.parse(promoted.stdout) as RolloutView).spec).toMatchObject({
      flag: { namespace: ns, name: "quota" },
      change: { enabled: true, defaultValue: "10" },
      waves: [{ clusters: ["eu-1"], bakeSeconds: 0 }],
    });

    const watch = start(["rollout", "watch", "quota-promoted", "--interval", "0.2"]);
    const printed = (text: string) =>
      eventually(
        () => Promise.resolve(watch.output.stdout),
        (out) => out.includes(text),
        `watch printing ${text}`,
      );
    await printed("plan quota-promoted Pending");
    await operatorWrites("quota-promoted", {
      phase: "Progressing",
      currentWave: 0,
      waves: [{ phase: "Applying", clusters: [{ id: "eu-1", phase: "Applying" }] }],
    });
    await printed("wave 0 cluster eu-1 Applying");
    await operatorWrites("quota-promoted", {
      phase: "Succeeded",
      message: "every wave passed its gate",
      waves: [{ phase: "Succeeded", clusters: [{ id: "eu-1", phase: "Succeeded" }] }],
    });
    const done = await watch.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout.split("\n").map((line) => line.replace(/^\S+ {2}/, ""))).toEqual([
      "plan quota-promoted Pending",
      "plan quota-promoted Progressing",
      "wave 0 Applying",
      "wave 0 cluster eu-1 Applying",
      "plan quota-promoted Succeeded: every wave passed its gate",
      "wave 0 Succeeded",
      "wave 0 cluster eu-1 Succeeded",
      "",
    ]);
  });

  it("watch exits 1 when the plan rolls back, and 130 when stopped with Ctrl-C", async () => {
    const created = await svc(words(`rollout create ${ns}/retries --value 5 --wave eu-1 --name retries-5`));
    expect(created.code, created.stderr).toBe(0);

    const stopped = start(["rollout", "watch", "retries-5", "--interval", "0.2"]);
    await eventually(
      () => Promise.resolve(stopped.output.stdout),
      (out) => out.includes("plan retries-5 Pending"),
      "the first line",
    );
    stopped.child.kill("SIGINT");
    const interrupted = await stopped.done;
    expect(interrupted.code).toBe(130);
    expect(interrupted.stderr).toBe(
      "svc flags rollout watch: stopped watching; plan retries-5 goes on (Pending): svc flags rollout get retries-5\n",
    );

    const watch = start(["rollout", "watch", "retries-5", "--interval", "0.2"]);
    await operatorWrites("retries-5", {
      phase: "RolledBack",
      message: "wave 0: Deployment web is unhealthy",
    });
    const rolledBack = await watch.done;
    expect(rolledBack.code).toBe(1);
    expect(rolledBack.stderr).toBe(
      "svc flags rollout watch: plan retries-5 RolledBack: wave 0: Deployment web is unhealthy\n",
    );
  });
});
