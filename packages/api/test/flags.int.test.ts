// Flags over REST, backed by FeatureFlag resources in a real kube-apiserver.
import { CustomObjectsApi, type V1Namespace } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, API_VERSION, FEATURE_FLAG } from "@svc/core";
import { beforeAll, describe, expect, it } from "vitest";
import { eventually, testNamespace } from "../../../test/support/kube.ts";
import { invalidFlagCases, validFlagSpec, validFlagSpecs } from "../../../test/support/flag-cases.ts";
import type { ConnectedCluster } from "@svc/kube";
import { ObjectStore } from "../../kube/src/registry/informer-cache.ts";
import { requireNamespace } from "../src/flags/guardrails.ts";
import { startClusterApi, type ClusterApi } from "./support/cluster-api.ts";

interface FlagReply {
  name: string;
  namespace: string;
  clusterId: string;
  type: string;
  defaultValue: string;
  description?: string;
  enabled: boolean;
  resourceVersion: string;
  createdAt: string;
  updatedAt: string;
  delivery: Record<string, unknown>;
  status: Record<string, unknown>;
}

let env: ClusterApi;
let ns: string;
let objects: CustomObjectsApi;

beforeAll(async () => {
  env = await startClusterApi("flags");
  ns = await testNamespace(env.kc, "flags");
  objects = env.kc.makeApiClient(CustomObjectsApi);
});

const admin = () => ({ token: env.tokens.admin });
const flagPath = (name: string, query = "clusterId=local") => `/api/v1/flags/${ns}/${name}?${query}`;

async function resource(name: string): Promise<Record<string, unknown> | undefined> {
  try {
    return (await objects.getNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace: ns,
      plural: FEATURE_FLAG.plural,
      name,
    })) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

async function create(name: string, spec: Record<string, unknown> = validFlagSpec): Promise<FlagReply> {
  const reply = await env.api.call("POST", "/api/v1/flags", {
    ...admin(),
    body: { name, namespace: ns, clusterId: "local", ...spec },
  });
  expect(reply.status, reply.text).toBe(201);
  return reply.json as FlagReply;
}

describe("create", () => {
  it("creates a FeatureFlag resource and answers 201 with the full flag, enabled", async () => {
    const flag = await create("checkout");
    expect(flag).toMatchObject({
      name: "checkout",
      namespace: ns,
      clusterId: "local",
      type: "boolean",
      defaultValue: "true",
      description: "New checkout flow",
      enabled: true,
      delivery: validFlagSpec.delivery,
    });
    expect(flag.resourceVersion).toMatch(/^\d+$/);
    expect(Date.parse(flag.createdAt)).not.toBeNaN();
    const stored = await resource("checkout");
    expect(stored?.["spec"]).toMatchObject({ ...validFlagSpec, enabled: true });
    // The writer's next read sees its write.
    const read = await env.api.call("GET", flagPath("checkout"), admin());
    expect(read.status).toBe(200);
    expect(read.json).toEqual(flag);
  });

  it.each(validFlagSpecs.map((spec, i) => [i, spec] as const))("accepts valid spec %i", async (i, spec) => {
    await create(`valid-${i}`, spec);
  });

  it.each(invalidFlagCases)(
    "refuses $why with 400 naming $field, and writes nothing",
    async ({ spec, field }) => {
      const name = "invalid-case";
      const reply = await env.api.call("POST", "/api/v1/flags", {
        ...admin(),
        body: { name, namespace: ns, clusterId: "local", ...spec },
      });
      expect(reply.status, reply.text).toBe(400);
      expect((reply.json as { error: string }).error).toContain(field);
      expect(await resource(name)).toBeUndefined();
    },
  );

  it("refuses a bad name, an unknown cluster and a namespace the cluster lacks with 400", async () => {
    const base = { namespace: ns, clusterId: "local", ...validFlagSpec };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, name: "Not_A_Label" }, "name"],
      [{ ...base, name: "x", clusterId: "nowhere" }, "clusterId"],
      [{ ...base, name: "x", namespace: "no-such-namespace" }, "namespace"],
      [{ ...base, name: "x", unknownField: 1 }, "unknownField"],
    ];
    for (const [body, field] of cases) {
      const reply = await env.api.call("POST", "/api/v1/flags", { ...admin(), body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect((reply.json as { error: string }).error).toContain(field);
    }
    expect(await resource("x")).toBeUndefined();
  });

  it("finds a namespace its cache does not hold yet in the cluster, and refuses one the cluster lacks", async () => {
    // A namespace made a moment ago (`kubectl create namespace`, then a flag in it) may not have
    // reached the cache when the flag arrives: the cluster's own answer decides, not the cache's.
    const cluster = env.registry.get("local");
    if (cluster === undefined) throw new Error("no local cluster");
    const behind = Object.create(cluster, {
      namespaces: { value: new ObjectStore<V1Namespace>(() => undefined) },
    }) as ConnectedCluster;
    await expect(requireNamespace(behind, ns)).resolves.toBeUndefined();
    await expect(requireNamespace(behind, "no-such-namespace")).rejects.toMatchObject({
      statusCode: 400,
      message: "namespace: no-such-namespace does not exist in cluster local",
    });
  });

  it("answers 409 to a duplicate and to a second flag writing the same ConfigMap key", async () => {
    await create("dup");
    const again = await env.api.call("POST", "/api/v1/flags", {
      ...admin(),
      body: { name: "dup", namespace: ns, clusterId: "local", ...validFlagSpec },
    });
    expect(again.status).toBe(409);
    const delivery = {
      configMap: { configMapName: "shared", key: "limit", selector: { matchLabels: { app: "x" } } },
    };
    await create("cm-one", { type: "integer", defaultValue: "1", delivery });
    const clash = await env.api.call("POST", "/api/v1/flags", {
      ...admin(),
      body: {
        name: "cm-two",
        namespace: ns,
        clusterId: "local",
        type: "integer",
        defaultValue: "2",
        delivery,
      },
    });
    expect(clash.status).toBe(409);
    expect((clash.json as { error: string }).error).toContain("shared");
    expect(await resource("cm-two")).toBeUndefined();
  });
});

describe("read", () => {
  it("needs clusterId on a single flag and answers 404 for unknown flags and clusters", async () => {
    await create("readable");
    expect((await env.api.call("GET", `/api/v1/flags/${ns}/readable`, admin())).status).toBe(400);
    expect((await env.api.call("GET", flagPath("absent"), admin())).status).toBe(404);
    expect((await env.api.call("GET", flagPath("readable", "clusterId=nowhere"), admin())).status).toBe(404);
  });

  it("lists by namespace and cluster, in a stable order", async () => {
    const reply = await env.api.call("GET", `/api/v1/flags?clusterId=local&namespace=${ns}`, admin());
    expect(reply.status).toBe(200);
    const names = (reply.json as FlagReply[]).map((f) => f.name);
    expect(names).toContain("checkout");
    expect(names).toEqual([...names].sort());
    const all = (await env.api.call("GET", "/api/v1/flags", admin())).json as FlagReply[];
    expect(all.filter((f) => f.namespace === ns).map((f) => f.name)).toEqual(names);
  });

  it("shows a FeatureFlag applied directly to the cluster, and forgets one deleted there", async () => {
    await objects.createNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace: ns,
      plural: FEATURE_FLAG.plural,
      body: {
        apiVersion: API_GROUP_VERSION,
        kind: FEATURE_FLAG.kind,
        metadata: { name: "from-kubectl" },
        spec: validFlagSpec,
      },
    });
    await eventually(
      () => env.api.call("GET", flagPath("from-kubectl"), admin()),
      (reply) => reply.status === 200,
      "the applied flag in the API",
      5000,
    );
    await objects.deleteNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace: ns,
      plural: FEATURE_FLAG.plural,
      name: "from-kubectl",
    });
    await eventually(
      () => env.api.call("GET", flagPath("from-kubectl"), admin()),
      (reply) => reply.status === 404,
      "the deleted flag gone from the API",
      5000,
    );
  });
});

describe("update", () => {
  it("round-trips GET → PUT unchanged, and PUT changes what the body says", async () => {
    const flag = await create("editable");
    const same = await env.api.call("PUT", flagPath("editable"), { ...admin(), body: flag });
    expect(same.status, same.text).toBe(200);
    expect({ ...(same.json as FlagReply), resourceVersion: "", updatedAt: "" }).toEqual({
      ...flag,
      resourceVersion: "",
      updatedAt: "",
    });
    const changed = await env.api.call("PUT", flagPath("editable"), {
      ...admin(),
      body: { ...(same.json as FlagReply), defaultValue: "false", description: "changed" },
    });
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({ defaultValue: "false", description: "changed" });
    expect((await resource("editable"))?.["spec"]).toMatchObject({
      defaultValue: "false",
      description: "changed",
    });
  });

  it("refuses identity fields that differ from the path, and invalid specs, writing nothing", async () => {
    const flag = await create("fixed");
    for (const [body, field] of [
      [{ ...flag, name: "other" }, "name"],
      [{ ...flag, namespace: "other" }, "namespace"],
      [{ ...flag, clusterId: "other" }, "clusterId"],
      [{ ...flag, defaultValue: "maybe" }, "defaultValue"],
    ] as const) {
      const reply = await env.api.call("PUT", flagPath("fixed"), { ...admin(), body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect((reply.json as { error: string }).error).toContain(field);
    }
    expect((await resource("fixed"))?.["spec"]).toMatchObject({ defaultValue: "true" });
  });

  it("lets exactly one of two concurrent updates with the same resourceVersion through", async () => {
    const flag = await create("contended");
    const [a, b] = await Promise.all([
      env.api.call("PUT", flagPath("contended"), { ...admin(), body: { ...flag, description: "from a" } }),
      env.api.call("PUT", flagPath("contended"), { ...admin(), body: { ...flag, description: "from b" } }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const winner = a.status === 200 ? "from a" : "from b";
    expect((await resource("contended"))?.["spec"]).toMatchObject({ description: winner });
  });

  it("needs clusterId and answers 404 for an unknown flag", async () => {
    const body = { ...validFlagSpec };
    expect((await env.api.call("PUT", `/api/v1/flags/${ns}/nothing`, { ...admin(), body })).status).toBe(400);
    expect((await env.api.call("PUT", flagPath("nothing"), { ...admin(), body })).status).toBe(404);
  });
});

describe("toggle", () => {
  it("flips without a body and sets idempotently with {enabled}", async () => {
    await create("switch");
    const off = await env.api.call("POST", `/api/v1/flags/${ns}/switch/toggle?clusterId=local`, admin());
    expect(off.status, off.text).toBe(200);
    expect((off.json as FlagReply).enabled).toBe(false);
    const on = await env.api.call("POST", `/api/v1/flags/${ns}/switch/toggle?clusterId=local`, admin());
    expect((on.json as FlagReply).enabled).toBe(true);
    for (let i = 0; i < 2; i++) {
      const set = await env.api.call("POST", `/api/v1/flags/${ns}/switch/toggle?clusterId=local`, {
        ...admin(),
        body: { enabled: false },
      });
      expect((set.json as FlagReply).enabled).toBe(false);
    }
    expect((await resource("switch"))?.["spec"]).toMatchObject({ enabled: false });
  });

  it("counts every one of concurrent flips (no lost toggle)", async () => {
    await create("flips");
    const replies = await Promise.all(
      [1, 2, 3, 4].map(() =>
        env.api.call("POST", `/api/v1/flags/${ns}/flips/toggle?clusterId=local`, admin()),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await resource("flips"))?.["spec"]).toMatchObject({ enabled: true });
  });
});

describe("delete", () => {
  it("deletes the resource and answers 200 {message}; then 404", async () => {
    await create("doomed");
    const reply = await env.api.call("DELETE", flagPath("doomed"), admin());
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ message: expect.stringContaining("doomed") as string });
    expect(await resource("doomed")).toBeUndefined();
    expect((await env.api.call("GET", flagPath("doomed"), admin())).status).toBe(404);
    expect((await env.api.call("DELETE", flagPath("doomed"), admin())).status).toBe(404);
  });
});

describe("audit", () => {
  it("records flag changes and denials with cluster, namespace, actor and before/after", async () => {
    await create("audited");
    await env.api.call("PUT", flagPath("audited"), {
      ...admin(),
      body: { ...validFlagSpec, defaultValue: "false" },
    });
    const denied = await env.api.call("DELETE", flagPath("audited"), { token: env.tokens.editor });
    expect(denied.status).toBe(403);
    const reply = await env.api.call("GET", "/api/v1/audit?resource=flag&cluster=local&limit=1000", admin());
    const events = (reply.json as Record<string, unknown>[]).filter((e) => e["resourceName"] === "audited");
    expect(events.map((e) => [e["action"], e["outcome"], e["actor"]])).toEqual([
      ["delete", "denied", "ed"],
      ["update", "success", "admin"],
      ["create", "success", "admin"],
    ]);
    for (const event of events) expect(event).toMatchObject({ namespace: ns, cluster: "local" });
    expect(events[1]?.["details"]).toEqual({
      before: { defaultValue: "true" },
      after: { defaultValue: "false" },
    });
  });
});
