// Variants, targeting, evaluation, and flagd file import/export over REST, against FeatureFlag
// resources in a real kube-apiserver.
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { API_GROUP, API_VERSION, FEATURE_FLAG } from "@svc/core";
import { compileFlag, evaluateFlag } from "@svc/core/targeting/flagd";
import { beforeAll, describe, expect, it } from "vitest";
import { eventually, testNamespace } from "../../../test/support/kube.ts";
import {
  answers,
  loadStrictly,
  migratedFlagdFile,
  sampleContexts,
} from "../../../test/support/flagd-files.ts";
import { startClusterApi, type ClusterApi } from "./support/cluster-api.ts";

let env: ClusterApi;
let ns: string;
let objects: CustomObjectsApi;

beforeAll(async () => {
  env = await startClusterApi("targeting");
  ns = await testNamespace(env.kc, "targeting");
  objects = env.kc.makeApiClient(CustomObjectsApi);
  // A create checks the namespace in the API's cache, whose watch may lag the namespace just made.
  await eventually(
    () => env.api.call("GET", "/api/v1/clusters/local/namespaces", as("admin")),
    (reply) => (reply.json as string[]).includes(ns),
    `namespace ${ns} in the API's cache`,
  );
});

const as = (role: "admin" | "editor" | "viewer") => ({ token: env.tokens[role] });
const selector = { matchLabels: { app: "shop" } };
const rollout = {
  type: "string",
  key: "Banner.Color",
  variants: { red: "red", blue: "blue" },
  defaultVariant: "blue",
  targeting: {
    if: [
      { $ref: "isStaff" },
      "red",
      {
        fractional: [
          ["red", 25],
          ["blue", 75],
        ],
      },
    ],
  },
  evaluators: { isStaff: { ends_with: [{ var: "email" }, "@example.com"] } },
  metadata: { owner: "web" },
  delivery: { sidecar: { selector } },
};

async function names(namespace = ns): Promise<string[]> {
  const list = (await objects.listNamespacedCustomObject({
    group: API_GROUP,
    version: API_VERSION,
    namespace,
    plural: FEATURE_FLAG.plural,
  })) as { items: { metadata: { name: string } }[] };
  return list.items.map((item) => item.metadata.name).sort();
}

const errorOf = (reply: { json: unknown }) => (reply.json as { error: string }).error;

describe("variants and targeting through /api/v1/flags", () => {
  it("creates a flag without defaultValue, derived from the default variant, and returns every field", async () => {
    const reply = await env.api.call("POST", "/api/v1/flags", {
      ...as("editor"),
      body: { name: "banner", namespace: ns, clusterId: "local", ...rollout },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.json).toMatchObject({ ...rollout, defaultValue: "blue" });
    const read = await env.api.call("GET", `/api/v1/flags/${ns}/banner?clusterId=local`, as("viewer"));
    expect(read.json).toEqual(reply.json);
    const list = await env.api.call("GET", `/api/v1/flags?clusterId=local&namespace=${ns}`, as("viewer"));
    expect(list.json).toContainEqual(reply.json);
  });

  it("keeps SPEC.md's shape for a flag with only a defaultValue", async () => {
    const reply = await env.api.call("POST", "/api/v1/flags", {
      ...as("admin"),
      body: {
        name: "plain",
        namespace: ns,
        clusterId: "local",
        type: "boolean",
        defaultValue: "true",
        delivery: { sidecar: { selector } },
      },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(Object.keys(reply.json as object).sort()).toEqual(
      [
        "name",
        "namespace",
        "clusterId",
        "type",
        "defaultValue",
        "description",
        "delivery",
        "enabled",
        "resourceVersion",
        "createdAt",
        "updatedAt",
        "status",
      ].sort(),
    );
  });

  it("refuses a defaultValue other than the default variant's (400 naming defaultValue), and a shared key (409 naming the holder)", async () => {
    const before = await names();
    const disagree = await env.api.call("POST", "/api/v1/flags", {
      ...as("admin"),
      body: {
        name: "disagree",
        namespace: ns,
        clusterId: "local",
        ...rollout,
        key: "Other",
        defaultValue: "red",
      },
    });
    expect(disagree.status).toBe(400);
    expect(errorOf(disagree)).toMatch(/^defaultValue: /);
    const shared = await env.api.call("POST", "/api/v1/flags", {
      ...as("admin"),
      body: { name: "banner-two", namespace: ns, clusterId: "local", ...rollout },
    });
    expect(shared.status).toBe(409);
    expect(errorOf(shared)).toContain(`flag ${ns}/banner`);
    const byName = await env.api.call("POST", "/api/v1/flags", {
      ...as("admin"),
      body: { name: "plain-two", namespace: ns, clusterId: "local", ...rollout, key: "plain" },
    });
    expect(byName.status).toBe(409);
    expect(errorOf(byName)).toContain(`flag ${ns}/plain`);
    expect(await names()).toEqual(before);
  });

  it("replaces targeting with PUT and drops it when the body leaves it out", async () => {
    const path = `/api/v1/flags/${ns}/banner?clusterId=local`;
    const current = (await env.api.call("GET", path, as("admin"))).json as Record<string, unknown>;
    const edited = { ...current, targeting: { if: [{ $ref: "isStaff" }, "red", "blue"] } };
    const put = await env.api.call("PUT", path, { ...as("editor"), body: edited });
    expect(put.status, put.text).toBe(200);
    expect(put.json).toMatchObject({ targeting: edited.targeting, defaultValue: "blue" });
    const withoutRule = Object.fromEntries(
      Object.entries(put.json as Record<string, unknown>).filter(
        ([field]) => !["targeting", "evaluators"].includes(field),
      ),
    );
    const plain = await env.api.call("PUT", path, { ...as("editor"), body: withoutRule });
    expect(plain.status, plain.text).toBe(200);
    expect(plain.json).not.toHaveProperty("targeting");
    // Restore the rollout for the evaluation tests.
    const back = await env.api.call("PUT", path, {
      ...as("editor"),
      body: { ...(plain.json as object), ...rollout },
    });
    expect(back.status, back.text).toBe(200);
  });
});

describe("evaluate", () => {
  it("answers what flagd-core answers for the stored flag, to any role", async () => {
    const spec = { ...rollout, defaultValue: "blue" } as Parameters<typeof compileFlag>[1];
    const compiled = compileFlag("Banner.Color", spec, false);
    const seen = new Set<string>();
    for (const context of [...sampleContexts(40), {}, { email: "boss@example.com" }]) {
      const reply = await env.api.call("POST", `/api/v1/flags/${ns}/banner/evaluate?clusterId=local`, {
        ...as("viewer"),
        body: { context },
      });
      expect(reply.status, reply.text).toBe(200);
      const expected = evaluateFlag("Banner.Color", compiled, context);
      expect(reply.json).toEqual(expected);
      seen.add(`${expected.variant}/${expected.reason}`);
    }
    // The contexts reach both variants (the staff rule and both buckets of the split).
    for (const variant of ["red", "blue"])
      expect([...seen].some((s) => s.startsWith(`${variant}/`))).toBe(true);
    const missing = await env.api.call("POST", `/api/v1/flags/${ns}/nothing/evaluate?clusterId=local`, {
      ...as("viewer"),
      body: {},
    });
    expect(missing.status).toBe(404);
  });

  it("evaluates an unsaved draft, and names the field of an invalid one", async () => {
    const draft = {
      type: "boolean",
      variants: { on: "true", off: "false" },
      defaultVariant: "off",
      targeting: { if: [{ in: [{ var: "tenant" }, ["acme"]] }, "on", "off"] },
      delivery: { sidecar: { selector } },
    };
    const reply = await env.api.call("POST", "/api/v1/flags/evaluate", {
      ...as("viewer"),
      body: { flag: draft, context: { tenant: "acme" } },
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json).toEqual({
      key: "draft",
      value: true,
      variant: "on",
      reason: "TARGETING_MATCH",
      metadata: {},
    });
    const bad = await env.api.call("POST", "/api/v1/flags/evaluate", {
      ...as("viewer"),
      body: { flag: { ...draft, targeting: { if: [true, "maybe", "off"] } }, context: {} },
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toMatch(/^flag\.targeting: /);
  });
});

describe("import and export of flagd files", () => {
  const delivery = { sidecar: { selector } };
  const importPath = () => `/api/v1/flags/import?clusterId=local&namespace=${ns}`;

  it("refuses a partly invalid file with every problem and creates nothing; a viewer may not import", async () => {
    const before = await names();
    const file = {
      ...migratedFlagdFile,
      flags: {
        ...migratedFlagdFile.flags,
        ratio: { state: "ENABLED", variants: { a: 0.5 }, defaultVariant: "a" },
        loose: { state: "ON", variants: { a: 1 }, defaultVariant: "a" },
      },
    };
    const reply = await env.api.call("POST", importPath(), { ...as("editor"), body: { delivery, file } });
    expect(reply.status).toBe(400);
    expect(errorOf(reply)).toContain('file.flags["ratio"].variants');
    expect(errorOf(reply)).toContain('file.flags["loose"].state');
    const viewer = await env.api.call("POST", importPath(), {
      ...as("viewer"),
      body: { delivery, file: migratedFlagdFile },
    });
    expect(viewer.status).toBe(403);
    expect(await names()).toEqual(before);
  });

  it("imports a file (dry run first), refuses it again with 409, and exports a file flagd loads that answers the same", async () => {
    const before = await names();
    const dry = await env.api.call("POST", importPath(), {
      ...as("editor"),
      body: { delivery, file: migratedFlagdFile, dryRun: true },
    });
    expect(dry.status, dry.text).toBe(200);
    expect(await names()).toEqual(before);
    const reply = await env.api.call("POST", importPath(), {
      ...as("editor"),
      body: { delivery, file: migratedFlagdFile },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.json).toEqual({ ...(dry.json as object), dryRun: false });
    const keys = (reply.json as { flags: { key: string }[] }).flags.map((f) => f.key).sort();
    expect(keys).toEqual(Object.keys(migratedFlagdFile.flags).sort());
    const again = await env.api.call("POST", importPath(), {
      ...as("editor"),
      body: { delivery, file: migratedFlagdFile },
    });
    expect(again.status).toBe(409);
    expect(errorOf(again)).toContain("already exist");

    const exported = await env.api.call(
      "GET",
      `/api/v1/flags/export?clusterId=local&namespace=${ns}`,
      as("viewer"),
    );
    expect(exported.status).toBe(200);
    const file = exported.json as { flags: Record<string, unknown> };
    const original = loadStrictly(migratedFlagdFile);
    const roundTrip = loadStrictly(file);
    for (const context of sampleContexts(200)) {
      const expected = answers(original, context);
      const got = answers(roundTrip, context);
      for (const key of Object.keys(migratedFlagdFile.flags)) expect(got[key], key).toEqual(expected[key]);
    }
  });

  it("deletes what it created when a write fails midway (a quota of 2 flags, a file of 5)", async () => {
    const quoted = await testNamespace(env.kc, "targeting-quota");
    const core = env.kc.makeApiClient(CoreV1Api);
    await core.createNamespacedResourceQuota({
      namespace: quoted,
      body: {
        metadata: { name: "two-flags" },
        spec: { hard: { [`count/${FEATURE_FLAG.plural}.${API_GROUP}`]: "2" } },
      },
    });
    // Quota admission needs the quota's usage; kube-controller-manager counts custom resources
    // only after its next discovery of them, so the usage (none yet) is written here.
    const counted = `count/${FEATURE_FLAG.plural}.${API_GROUP}`;
    const quota = await eventually(
      () => core.readNamespacedResourceQuota({ name: "two-flags", namespace: quoted }),
      (read) => read.status?.hard !== undefined,
      "the quota published",
    );
    quota.status = { hard: { [counted]: "2" }, used: { [counted]: "0" } };
    await core.replaceNamespacedResourceQuotaStatus({ name: "two-flags", namespace: quoted, body: quota });
    const reply = await env.api.call("POST", `/api/v1/flags/import?clusterId=local&namespace=${quoted}`, {
      ...as("editor"),
      body: { delivery, file: migratedFlagdFile },
    });
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(errorOf(reply)).toMatch(
      /^import stopped at flag .*: .*quota.*; the 2 flags created before it were deleted$/,
    );
    expect(await names(quoted)).toEqual([]);
  });
});
