// Direct flag writes on a protected cluster (issue 37, item 4), over REST against the real
// kube-apiserver: cluster "prod" (labelled svc.io/protected=true) is registered on the shared
// control plane, scanning this file's namespace. Editors are sent to a plan; an admin writes only
// with a reason, which the audit log keeps; dry runs stay open; the unprotected local cluster is
// unchanged.
import { readFile } from "node:fs/promises";
import { CustomObjectsApi } from "@kubernetes/client-node";
import {
  API_GROUP,
  API_VERSION,
  FEATURE_FLAG,
  OVERRIDE_REASON_HEADER,
  PROTECTED_CLUSTER_LABEL,
  type FeatureFlagResource,
} from "@svc/core";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { validFlagSpec } from "../../../test/support/flag-cases.ts";
import { eventually, testNamespace } from "../../../test/support/kube.ts";
import { startClusterApi, type ClusterApi } from "./support/cluster-api.ts";

let env: ClusterApi;
let ns = "";
let custom: CustomObjectsApi;
const token = (role: "admin" | "editor" | "viewer") => env.tokens[role];
const errorOf = (reply: { json: unknown }) => (reply.json as { error: string }).error;
const PLAN_ROUTE = /POST \/api\/v1\/rollouts/;

/** The flag as the cluster stores it, or undefined when there is none. */
async function stored(name: string): Promise<FeatureFlagResource | undefined> {
  try {
    return (await custom.getNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace: ns,
      plural: FEATURE_FLAG.plural,
      name,
    })) as FeatureFlagResource;
  } catch (error) {
    if ((error as { code?: number }).code === 404) return undefined;
    throw error;
  }
}

/** A flag created through the unprotected local cluster, once prod's cache holds it too. */
async function existing(name: string): Promise<FeatureFlagResource> {
  const reply = await env.api.call("POST", "/api/v1/flags", {
    token: token("admin"),
    body: { ...validFlagSpec, name, namespace: ns, clusterId: "local" },
  });
  expect(reply.status, reply.text).toBe(201);
  await eventually(
    () => Promise.resolve(env.registry.get("prod")?.flags.get(ns, name)),
    (f) => f !== undefined,
    `${name} in prod`,
  );
  const flag = await stored(name);
  if (flag === undefined) throw new Error(`${name} not stored`);
  return flag;
}

const flagPath = (name: string, suffix = "", query = "clusterId=prod") =>
  `/api/v1/flags/${ns}/${name}${suffix}?${query}`;
const importPath = (cluster = "prod") => `/api/v1/flags/import?clusterId=${cluster}&namespace=${ns}`;
const flagdFile = (key: string) => ({
  flags: { [key]: { state: "ENABLED", variants: { on: true, off: false }, defaultVariant: "on" } },
});
const importBody = (key: string, dryRun = false) => ({
  delivery: { sidecar: { selector: { matchLabels: { app: "web" } } } },
  file: flagdFile(key),
  ...(dryRun ? { dryRun } : {}),
});

/** Every direct write route, aimed at `name` (an existing flag) or `fresh` (none yet), on `cluster`. */
function writes(name: string, fresh: string, cluster = "prod") {
  const query = `clusterId=${cluster}`;
  return {
    toggle: ["POST", flagPath(name, "/toggle", query), {}],
    update: ["PUT", flagPath(name, "", query), { ...validFlagSpec, defaultValue: "false" }],
    delete: ["DELETE", flagPath(name, "", query), undefined],
    create: ["POST", "/api/v1/flags", { ...validFlagSpec, name: fresh, namespace: ns, clusterId: cluster }],
    import: ["POST", importPath(cluster), importBody(`${fresh}-file`)],
  } as const;
}

async function send(
  [method, path, body]: readonly [string, string, unknown],
  who: string,
  headers: Record<string, string> = {},
) {
  return env.api.call(method, path, { token: who, headers, ...(body === undefined ? {} : { body }) });
}

beforeAll(async () => {
  env = await startClusterApi("protect");
  custom = env.kc.makeApiClient(CustomObjectsApi);
  ns = await testNamespace(env.kc, "protect");
  const kubeconfig = await readFile(inject("kubeconfigPath"), "utf8");
  const reply = await env.api.call("POST", "/api/v1/clusters", {
    token: token("admin"),
    body: {
      id: "prod",
      displayName: "prod",
      apiServer: env.kc.getCurrentCluster()?.server,
      authMethod: "kubeconfig",
      kubeconfig,
      labels: { [PROTECTED_CLUSTER_LABEL]: "true" },
      namespaces: [ns],
    },
  });
  expect(reply.status, reply.text).toBe(201);
});

describe("a direct write on a protected cluster", () => {
  it("is refused to an editor (403 naming the plan route) for toggle, update, delete, create and import; nothing changes", async () => {
    const flag = await existing("edited");
    for (const [write, call] of Object.entries(writes("edited", "edited-new"))) {
      const reply = await send(call, token("editor"));
      expect(reply.status, `${write}: ${reply.text}`).toBe(403);
      // Deleting is an admin's in the access table: the editor is refused before the cluster is looked at.
      if (write !== "delete") expect(errorOf(reply), write).toMatch(PLAN_ROUTE);
      if (write !== "delete") expect(errorOf(reply), write).toMatch(/cluster prod is protected/);
    }
    const after = await stored("edited");
    expect(after?.spec).toEqual(flag.spec);
    expect(after?.metadata.resourceVersion).toBe(flag.metadata.resourceVersion);
    expect(await stored("edited-new")).toBeUndefined();
    expect(await stored("edited-new-file")).toBeUndefined();
    // An editor's reason changes nothing: only an admin may override.
    const reasoned = await send(writes("edited", "edited-new").toggle, token("editor"), {
      [OVERRIDE_REASON_HEADER]: "incident 42",
    });
    expect(reasoned.status).toBe(403);
    expect(errorOf(reasoned)).toMatch(/only an admin may override/);
    expect((await stored("edited"))?.spec).toEqual(flag.spec);
  });

  it("is refused to an admin without a reason, naming the header; nothing changes", async () => {
    const flag = await existing("unexplained");
    for (const [write, call] of Object.entries(writes("unexplained", "unexplained-new"))) {
      const reply = await send(call, token("admin"));
      expect(reply.status, `${write}: ${reply.text}`).toBe(403);
      expect(errorOf(reply), write).toMatch(PLAN_ROUTE);
      expect(errorOf(reply), write).toContain(OVERRIDE_REASON_HEADER);
    }
    const after = await stored("unexplained");
    expect(after?.spec).toEqual(flag.spec);
    expect(after?.metadata.resourceVersion).toBe(flag.metadata.resourceVersion);
    expect(await stored("unexplained-new")).toBeUndefined();
    expect(await stored("unexplained-new-file")).toBeUndefined();
  });

  it("refuses a malformed reason with 400 naming the header, whoever sends it", async () => {
    const flag = await existing("malformed");
    const toggle = writes("malformed", "malformed-new").toggle;
    for (const reason of ["   ", "x".repeat(501), "%E0%A4%A", "two%0Alines"]) {
      const reply = await send(toggle, token("admin"), { [OVERRIDE_REASON_HEADER]: reason });
      expect(reply.status, reason).toBe(400);
      expect(errorOf(reply)).toMatch(new RegExp(`^${OVERRIDE_REASON_HEADER}: `));
    }
    expect((await stored("malformed"))?.metadata.resourceVersion).toBe(flag.metadata.resourceVersion);
  });

  it("goes ahead for an admin with a reason, and each audit event carries the reason", async () => {
    await existing("overridden");
    const reason = "incident 4711: checkout down – switching off";
    const header = { [OVERRIDE_REASON_HEADER]: encodeURIComponent(reason) };
    const calls = writes("overridden", "overridden-new");
    const expected = { toggle: 200, update: 200, create: 201, import: 201, delete: 200 } as const;
    for (const write of ["toggle", "update", "create", "import", "delete"] as const) {
      const reply = await send(calls[write], token("admin"), header);
      expect(reply.status, `${write}: ${reply.text}`).toBe(expected[write]);
    }
    expect((await stored("overridden-new"))?.spec.defaultValue).toBe("true");
    expect(await stored("overridden-new-file")).toBeDefined();
    const deleted = await stored("overridden");
    expect(deleted === undefined || deleted.metadata.deletionTimestamp !== undefined).toBe(true);
    const audit = await env.api.call(
      "GET",
      `/api/v1/audit?resource=flag&actor=admin&cluster=prod&limit=1000`,
      {
        token: token("admin"),
      },
    );
    const events = audit.json as { action: string; outcome: string; details: Record<string, unknown> }[];
    const overridden = events.filter(
      (e) => e.outcome === "success" && e.details["overrideReason"] === reason,
    );
    expect(overridden.map((e) => e.action).sort()).toEqual([
      "create",
      "create",
      "delete",
      "toggle",
      "update",
    ]);
  });

  it("stays open as a dry run (a preview writes nothing)", async () => {
    const flag = await existing("previewed");
    const update = await env.api.call("PUT", flagPath("previewed", "", "clusterId=prod&dryRun=true"), {
      token: token("editor"),
      body: { ...validFlagSpec, defaultValue: "false" },
    });
    expect(update.status, update.text).toBe(200);
    const create = await env.api.call("POST", "/api/v1/flags?dryRun=true", {
      token: token("editor"),
      body: { ...validFlagSpec, name: "previewed-new", namespace: ns, clusterId: "prod" },
    });
    expect(create.status, create.text).toBe(200);
    const imported = await env.api.call("POST", importPath(), {
      token: token("editor"),
      body: importBody("previewed-file", true),
    });
    expect(imported.status, imported.text).toBe(200);
    expect((await stored("previewed"))?.metadata.resourceVersion).toBe(flag.metadata.resourceVersion);
    expect(await stored("previewed-new")).toBeUndefined();
  });

  it("lets an admin by grant over the flag's cluster and namespace override there, not an editor by grant", async () => {
    const flag = await existing("granted");
    const user = async (username: string, role: "admin" | "editor") => {
      const reply = await env.api.call("POST", "/api/v1/users", {
        token: token("admin"),
        body: {
          username,
          password: `${username}-password`,
          role: "none",
          grants: [{ role, clusters: ["prod"], namespaces: [ns] }],
        },
      });
      expect(reply.status, reply.text).toBe(201);
      return env.api.login(username, `${username}-password`);
    };
    const [ops, dev] = [await user("ops", "admin"), await user("dev", "editor")];
    const toggle = writes("granted", "granted-new").toggle;
    const header = { [OVERRIDE_REASON_HEADER]: "INC-9" };
    const editor = await send(toggle, dev, header);
    expect(editor.status).toBe(403);
    expect(errorOf(editor)).toMatch(/only an admin may override/);
    expect((await send(toggle, ops)).status).toBe(403);
    expect((await stored("granted"))?.metadata.resourceVersion).toBe(flag.metadata.resourceVersion);
    const admin = await send(toggle, ops, header);
    expect(admin.status, admin.text).toBe(200);
    expect((await stored("granted"))?.spec.enabled).toBe(false);
  });

  it("leaves an unprotected cluster as it was: an editor toggles and updates there", async () => {
    await existing("open");
    const calls = writes("open", "open-new", "local");
    expect((await send(calls.toggle, token("editor"))).status).toBe(200);
    expect((await send(calls.update, token("editor"))).status).toBe(200);
    expect((await stored("open"))?.spec).toMatchObject({ enabled: false, defaultValue: "false" });
  });
});
