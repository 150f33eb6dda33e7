// `svc flags` verbs as processes (node packages/cli/src/main.ts) against a real API server and
// kube-apiserver, as a pipeline runs them: issue 24's script login → apply -f (3 flags) → diff
// → set → toggle → list -o json → delete, with each exit code and output; a bad file; and a
// list longer than a page.
// One API server in this process for the file; only the CLI is spawned.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { AppsV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, API_VERSION, FEATURE_FLAG, type FlagView } from "@svc/core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startClusterApi, type ClusterApi } from "../../api/test/support/cluster-api.ts";
import { ADMIN_PASSWORD } from "../../api/test/support/harness.ts";
import { LIST_PAGE } from "../src/flags/crud.ts";
import { eventually, testNamespace } from "../../../test/support/kube.ts";

const MAIN = resolve(import.meta.dirname, "../src/main.ts");

let env: ClusterApi;
let ns = "";
let home = "";

beforeAll(async () => {
  env = await startClusterApi("cli-verbs");
  ns = await testNamespace(env.kc, "cli-verbs");
  home = await mkdtemp(join(tmpdir(), "svc-cli-verbs-"));
  const labels = { app: "web" };
  await env.kc.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace: ns,
    body: {
      metadata: { name: "web", labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { containers: [{ name: "web", image: "registry.invalid/web" }] },
        },
      },
    },
  });
  await eventually(
    () =>
      env.api.call("GET", `/api/v1/clusters/local/workloads?namespace=${ns}`, { token: env.tokens.viewer }),
    (reply) => Array.isArray(reply.json) && reply.json.length === 1,
    "the Deployment in the API",
    10_000,
  );
});

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

/** `svc flags …` to its end (bounded), with no SVC_TOKEN: the token comes from login's file. */
async function svc(args: string[], stdin = "") {
  const child = spawn(process.execPath, [MAIN, "flags", ...args], {
    env: { PATH: process.env["PATH"] ?? "", HOME: home, XDG_CONFIG_HOME: join(home, "config") },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(stdin);
  const timeout = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const [code] = (await once(child, "exit")) as [number | null];
  clearTimeout(timeout);
  return { code, stdout, stderr };
}

/** The flag as the API stores it now (read directly, not through the CLI). */
async function stored(name: string): Promise<FlagView | undefined> {
  const reply = await env.api.call("GET", `/api/v1/flags/${ns}/${name}?clusterId=local`, {
    token: env.tokens.admin,
  });
  return reply.status === 200 ? (reply.json as FlagView) : undefined;
}

/** The audit log's events about this file's flags (what was written, by whom). */
async function flagEvents(): Promise<{ action: string; resourceName: string }[]> {
  const reply = await env.api.call("GET", `/api/v1/audit?resource=flag&namespace=${ns}`, {
    token: env.tokens.admin,
  });
  return reply.json as { action: string; resourceName: string }[];
}

const threeFlags = (checkoutValue: string) => `
- name: checkout
  namespace: ${ns}
  type: boolean
  defaultValue: ${checkoutValue}
  description: New checkout flow
  delivery: { envVar: { selector: { matchLabels: { app: web } } } }
- name: limit
  namespace: ${ns}
  type: integer
  defaultValue: "10"
  delivery: { configMap: { configMapName: shop-flags, key: limit, selector: { matchLabels: { app: web } } } }
- name: theme
  namespace: ${ns}
  type: string
  defaultValue: dark
  delivery: { sidecar: { selector: { matchLabels: { app: other } } } }
`;

it("runs login → apply -f → diff → set → toggle → list -o json → delete, with exit codes 0, 3 and 4", async () => {
  const login = await svc(
    ["login", "--server", env.api.url, "--username", "admin", "--password-stdin"],
    `${ADMIN_PASSWORD}\n`,
  );
  expect(login.code, login.stderr).toBe(0);
  const tokenFile = join(home, "config", "svc", "token");
  expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
  const { token, server } = JSON.parse(await readFile(tokenFile, "utf8")) as {
    token: string;
    server: string;
  };
  expect(server).toBe(env.api.url);
  expect(token).toMatch(/^[0-9a-f]{64}$/);
  expect(login.stdout + login.stderr).not.toContain(token);

  const file = join(home, "flags.yaml");
  await writeFile(file, threeFlags("true"));
  const applied = await svc(["apply", "-f", file]);
  expect(applied.code, applied.stderr).toBe(0);
  for (const name of ["checkout", "limit", "theme"])
    expect(applied.stdout).toContain(`${ns}/${name} (cluster local) created`);
  expect((await stored("checkout"))?.defaultValue).toBe("true");

  // Idempotent: a second apply writes nothing, so no flag gets a new resourceVersion.
  const versions = await Promise.all(
    ["checkout", "limit", "theme"].map(async (n) => (await stored(n))?.resourceVersion),
  );
  const again = await svc(["apply", "-f", file]);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stdout.match(/ unchanged$/gm)).toHaveLength(3);
  // Not even a no-op write (which would keep the resourceVersion): the audit log has only the creations.
  expect((await flagEvents()).map((e) => `${e.action} ${e.resourceName}`).sort()).toEqual([
    "create checkout",
    "create limit",
    "create theme",
  ]);
  expect(
    await Promise.all(["checkout", "limit", "theme"].map(async (n) => (await stored(n))?.resourceVersion)),
  ).toEqual(versions);

  // diff: the changed field, the workload it restarts; nothing written.
  await writeFile(file, threeFlags("false"));
  const diff = await svc(["diff", "-f", file]);
  expect(diff.code, diff.stderr).toBe(0);
  expect(diff.stdout).toContain(`~ ${ns}/checkout (cluster local): changed`);
  expect(diff.stdout).toContain('defaultValue: "true" → "false"');
  expect(diff.stdout).toMatch(
    new RegExp(`Deployment ${ns}/web +matched by labels +restarts \\(.+\\) +value "false"`),
  );
  expect(diff.stdout).toContain(`= ${ns}/limit (cluster local): unchanged`);
  expect(diff.stdout).toContain("0 to create, 1 to change, 2 unchanged");
  expect((await stored("checkout"))?.resourceVersion).toBe(versions[0]);

  const set = await svc(["set", `${ns}/limit`, "--value", "20"]);
  expect(set.code, set.stderr).toBe(0);
  expect(set.stdout).toMatch(new RegExp(`^${ns} +limit +local +integer +20 +yes +configMap app=web`, "m"));
  expect((await stored("limit"))?.defaultValue).toBe("20");
  // What get -o yaml prints is a file apply takes back, unchanged (read-only fields ignored).
  const yaml = await svc(["get", `${ns}/limit`, "-o", "yaml"]);
  expect(yaml.stdout).toContain("resourceVersion:");
  await writeFile(join(home, "limit.yaml"), yaml.stdout);
  const roundTrip = await svc(["apply", "-f", join(home, "limit.yaml")]);
  expect(roundTrip.code, roundTrip.stderr).toBe(0);
  expect(roundTrip.stdout).toBe(`${ns}/limit (cluster local) unchanged\n`);

  const toggled = await svc(["toggle", "theme", "-n", ns, "-o", "json"]);
  expect(toggled.code, toggled.stderr).toBe(0);
  expect((JSON.parse(toggled.stdout) as FlagView).enabled).toBe(false);

  const listed = await svc(["list", "--namespace", ns, "-o", "json"]);
  expect(listed.code, listed.stderr).toBe(0);
  const flags = JSON.parse(listed.stdout) as FlagView[];
  expect(flags.map((f) => [f.name, f.defaultValue, f.enabled])).toEqual([
    ["checkout", "true", true],
    ["limit", "20", true],
    ["theme", "dark", false],
  ]);

  const deleted = await svc(["delete", `${ns}/theme`]);
  expect(deleted.code, deleted.stderr).toBe(0);
  expect(deleted.stdout).toBe(`flag ${ns}/theme deleted\n`);
  const gone = await svc(["get", `${ns}/theme`]);
  expect(gone.code).toBe(3);
  expect(gone.stderr).toContain("404");

  const duplicate = await svc([
    "create",
    `${ns}/limit`,
    "--type",
    "integer",
    "--value",
    "1",
    "--selector",
    "app=web",
  ]);
  expect(duplicate.code).toBe(4);
  expect(duplicate.stderr).toContain("409");
});

it("refuses a bad file with exit 1 naming the field, before any write; bad usage is exit 2", async () => {
  const file = join(home, "bad.yaml");
  await writeFile(
    file,
    JSON.stringify([
      {
        name: "fine",
        namespace: ns,
        type: "boolean",
        defaultValue: "true",
        delivery: { sidecar: { selector: { matchLabels: { app: "web" } } } },
      },
      {
        name: "broken",
        namespace: ns,
        type: "boolean",
        defaultValue: "maybe",
        delivery: { sidecar: { selector: { matchLabels: { app: "web" } } } },
      },
    ]),
  );
  const bad = await svc(["apply", "-f", file, "--token", env.tokens.editor, "--server", env.api.url]);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain(`${file}: [1].defaultValue:`);
  expect(bad.stderr).toContain(`(flag ${ns}/broken)`);
  expect(await stored("fine")).toBeUndefined();

  const usage = await svc(["apply", "--token", env.tokens.editor, "--server", env.api.url]);
  expect(usage.code).toBe(2);
  expect(usage.stderr).toContain("--filename: is required");
});

it("lists a namespace of more flags than a page, every one once, in the API's order", async () => {
  const many = await testNamespace(env.kc, "cli-pages");
  const objects = env.kc.makeApiClient(CustomObjectsApi);
  const names = Array.from({ length: LIST_PAGE + 1 }, (_, i) => `flag-${String(i).padStart(4, "0")}`);
  let next = 0;
  const writer = async () => {
    for (let i = next++; i < names.length; i = next++) {
      await objects.createNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        namespace: many,
        plural: FEATURE_FLAG.plural,
        body: {
          apiVersion: API_GROUP_VERSION,
          kind: FEATURE_FLAG.kind,
          metadata: { name: names[i] },
          spec: {
            type: "integer",
            defaultValue: String(i),
            delivery: { sidecar: { selector: { matchLabels: { app: "none" } } } },
          },
        },
      });
    }
  };
  await Promise.all(Array.from({ length: 16 }, writer));
  await eventually(
    () => env.api.call("GET", `/api/v1/flags?namespace=${many}&limit=1`, { token: env.tokens.viewer }),
    (reply) =>
      (reply.json as { metadata?: { remainingItemCount?: number } }).metadata?.remainingItemCount ===
      LIST_PAGE,
    "every flag in the API's cache",
    30_000,
  );
  const listed = await svc([
    "list",
    "-n",
    many,
    "-o",
    "json",
    "--token",
    env.tokens.viewer,
    "--server",
    env.api.url,
  ]);
  expect(listed.code, listed.stderr).toBe(0);
  expect((JSON.parse(listed.stdout) as FlagView[]).map((f) => f.name)).toEqual(names);
  // The cluster is shared with the other test files: 501 more flags slow every whole-list reader.
  await objects.deleteCollectionNamespacedCustomObject({
    group: API_GROUP,
    version: API_VERSION,
    namespace: many,
    plural: FEATURE_FLAG.plural,
  });
});
