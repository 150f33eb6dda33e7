// SPEC.md's Flags section, walked through the REST API against the demo namespace of svc dev.
import { AppsV1Api, CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { expect } from "vitest";
import { eventually } from "../../support/kube.ts";
import { expectError, expectFields, expectJson, tokensByRole, type SpecApi } from "./api.ts";

const FLAG_FIELDS = {
  name: "string",
  namespace: "string",
  clusterId: "string",
  type: "string",
  defaultValue: "string",
  description: "string",
  delivery: "object",
} as const;

const LOCAL = "clusterId=local";
const at = (name: string, suffix = "") => `/api/v1/flags/demo/${name}${suffix}?${LOCAL}`;

function definition(name: string, overrides: Record<string, unknown> = {}) {
  return {
    name,
    namespace: "demo",
    clusterId: "local",
    type: "boolean",
    defaultValue: "true",
    description: "walked by the SPEC.md conformance test",
    delivery: { envVar: { selector: { matchLabels: { app: "web" } } } },
    ...overrides,
  };
}

/** The flag as returned: SPEC.md's fields with their types, and the enabled state (DESIGN.md §4). */
function expectFlag(body: unknown, expected: Record<string, unknown>): { enabled: boolean } {
  expectFields(body, FLAG_FIELDS);
  expect(body).toMatchObject(expected);
  expect(typeof (body as { enabled: unknown }).enabled).toBe("boolean");
  return body as { enabled: boolean };
}

/** Waits until every container of the demo Deployment web has FLAG_SPECENV=`value`; its flags hash. */
async function deliveredToWeb(hub: KubeConfig, value: string): Promise<string> {
  const web = await eventually(
    () => hub.makeApiClient(AppsV1Api).readNamespacedDeployment({ namespace: "demo", name: "web" }),
    (d) =>
      d.spec?.template.spec?.containers.every(
        (c) => c.env?.find((e) => e.name === "FLAG_SPECENV")?.value === value,
      ) === true,
    `FLAG_SPECENV=${value} in every container of web`,
    30_000,
  );
  const hash = web.metadata?.annotations?.["svc.io/flags-hash"];
  expect(typeof hash).toBe("string");
  return String(hash);
}

export async function walkFlags(api: SpecApi, adminToken: string, hub: KubeConfig): Promise<void> {
  const { editor, viewer } = await tokensByRole(api, adminToken, "spec-flags");
  const flag = definition("specenv");

  // Create: admin and editor; 201; the envVar name defaults to FLAG_ + the upper-cased name.
  expectError(await api.call("POST", "/api/v1/flags", viewer, flag), 403);
  const created = await api.call("POST", "/api/v1/flags", editor, flag);
  expect(expectFlag(expectJson(created, 201), flag).enabled).toBe(true);
  expectError(await api.call("POST", "/api/v1/flags", adminToken, flag), 409);

  // Bad input → 400 naming the field, and nothing is created.
  const bad = [
    [definition("specbad", { defaultValue: true }), /defaultValue/],
    [definition("specbad", { defaultValue: "maybe" }), /defaultValue/],
    [definition("specbad", { type: 7 }), /type/],
    [definition("specbad", { delivery: undefined }), /delivery/],
    [{ ...definition("specbad"), name: undefined }, /name/],
    [
      definition("specbad", { delivery: { envVar: { selector: { matchLabels: { app: 1 } } } } }),
      /matchLabels/,
    ],
  ] as const;
  for (const [body, field] of bad)
    expectError(await api.call("POST", "/api/v1/flags", adminToken, body), 400, field);
  expectError(await api.call("GET", at("specbad"), viewer), 404);

  // Read: every role; clusterId is required on GET one.
  const got = expectJson(await api.call("GET", at("specenv"), viewer), 200);
  expectFlag(got, flag);
  expectError(await api.call("GET", "/api/v1/flags/demo/specenv", viewer), 400, /clusterId/);
  expectError(await api.call("GET", "/api/v1/flags/demo/specenv?clusterId=nowhere", viewer), 404);
  expectError(await api.call("GET", at("no-such-flag"), viewer), 404);
  const names = async (query: string) => {
    const flags = expectJson(await api.call("GET", `/api/v1/flags${query}`, viewer), 200) as unknown[];
    expect(Array.isArray(flags)).toBe(true);
    for (const f of flags) expectFields(f, FLAG_FIELDS);
    return (flags as { name: string; namespace: string; clusterId: string }[]).map(
      (f) => `${f.clusterId}/${f.namespace}/${f.name}`,
    );
  };
  for (const query of ["", `?${LOCAL}`, "?namespace=demo", `?${LOCAL}&namespace=demo`])
    expect(await names(query)).toContain("local/demo/specenv");
  expect(await names("?namespace=default")).toEqual([]);
  expectError(await api.call("GET", "/api/v1/flags?clusterId=nowhere", viewer), 404);

  // Delivered as SPEC.md says: FLAG_SPECENV (the default name) in every container of web, which
  // carries svc.io/flags-hash; the workload's view in the API shows the injection.
  const hash = await deliveredToWeb(hub, "true");
  const web = await api.call("GET", "/api/v1/clusters/local/workloads/demo/web", viewer);
  expect(web.text).toContain("FLAG_SPECENV");

  // Update: admin and editor; only what the definition changes.
  const changed = definition("specenv", { defaultValue: "false", description: "changed by the walk" });
  expectError(await api.call("PUT", at("specenv"), viewer, changed), 403);
  expectFlag(expectJson(await api.call("PUT", at("specenv"), editor, changed), 200), changed);
  expectFlag(expectJson(await api.call("GET", at("specenv"), viewer), 200), changed);
  expect(await deliveredToWeb(hub, "false")).not.toBe(hash); // a new value, a new hash

  // Toggle: admin and editor, each call flips the state.
  expectError(await api.call("POST", at("specenv", "/toggle"), viewer), 403);
  const off = expectJson(await api.call("POST", at("specenv", "/toggle"), editor), 200);
  expect(expectFlag(off, changed).enabled).toBe(false);
  expect(expectFlag(expectJson(await api.call("GET", at("specenv"), viewer), 200), changed).enabled).toBe(
    false,
  );
  const on = expectJson(await api.call("POST", at("specenv", "/toggle"), adminToken), 200);
  expect(expectFlag(on, changed).enabled).toBe(true);
  expectError(await api.call("POST", at("no-such-flag", "/toggle"), adminToken), 404);

  // An integer flag delivered by ConfigMap, and a sidecar flag without its optional port.
  const configMap = definition("specint", {
    type: "integer",
    defaultValue: "42",
    delivery: {
      configMap: { configMapName: "spec-flags", key: "specint", selector: { matchLabels: { app: "cache" } } },
    },
  });
  expectFlag(expectJson(await api.call("POST", "/api/v1/flags", adminToken, configMap), 201), configMap);
  await eventually(
    () =>
      hub
        .makeApiClient(CoreV1Api)
        .readNamespacedConfigMap({ namespace: "demo", name: "spec-flags" })
        .catch(() => undefined), // not made yet
    (map) => map?.data?.["specint"] === "42",
    "ConfigMap spec-flags with specint=42",
    30_000,
  );
  const sidecar = definition("specside", {
    delivery: { sidecar: { selector: { matchLabels: { app: "log-agent" } } } },
  });
  expectFlag(expectJson(await api.call("POST", "/api/v1/flags", adminToken, sidecar), 201), sidecar);

  // Delete: admin only; then gone.
  for (const name of ["specenv", "specint", "specside"]) {
    for (const token of [editor, viewer]) expectError(await api.call("DELETE", at(name), token), 403);
    expect((await api.call("DELETE", at(name), adminToken)).status).toBe(200);
    expectError(await api.call("GET", at(name), viewer), 404);
    expectError(await api.call("DELETE", at(name), adminToken), 404);
  }
}

/** create → update → toggle → delete, `cycles` times: a GET after each 200 DELETE is a 404. */
export async function walkFlagCycles(api: SpecApi, adminToken: string, cycles: number): Promise<void> {
  for (let i = 0; i < cycles; i++) {
    const name = `spec-cycle-${i}`;
    const flag = definition(name, {
      delivery: { envVar: { selector: { matchLabels: { app: "spec-none" } } } },
    });
    expect((await api.call("POST", "/api/v1/flags", adminToken, flag)).status, `create ${name}`).toBe(201);
    const update = { ...flag, defaultValue: "false" };
    expect((await api.call("PUT", at(name), adminToken, update)).status, `update ${name}`).toBe(200);
    expect((await api.call("POST", at(name, "/toggle"), adminToken)).status, `toggle ${name}`).toBe(200);
    expect((await api.call("DELETE", at(name), adminToken)).status, `delete ${name}`).toBe(200);
    expectError(await api.call("GET", at(name), adminToken), 404);
    const listed = expectJson(
      await api.call("GET", `/api/v1/flags?${LOCAL}&namespace=demo`, adminToken),
      200,
    ) as { name: string }[];
    expect(
      listed.map((f) => f.name),
      `list after deleting ${name}`,
    ).not.toContain(name);
  }
}
