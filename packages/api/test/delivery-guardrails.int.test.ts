// Delivery guardrails over REST (issue 37, item 2): a variable a runtime reads at start is
// refused for every role (400 naming the field) on create, update and import; so are svc's own
// namespace and kube-*, and names outside the installation's patterns; a ConfigMap svc did not
// create is refused with 409 naming its owner, and nothing in it changes.
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
} from "@kubernetes/client-node";
import { API_GROUP, API_VERSION, DEFAULT_DELIVERY_POLICY, FEATURE_FLAG } from "@svc/core";
import { beforeAll, describe, expect, it } from "vitest";
import { eventually, testNamespace } from "../../../test/support/kube.ts";
import { REFUSED_NAMES } from "../../core/test/support/refused-env-names.ts";
import { startClusterApi, type ClusterApi } from "./support/cluster-api.ts";

const selector = { matchLabels: { app: "web" } };
let env: ClusterApi;
let ns: string;

beforeAll(async () => {
  env = await startClusterApi("guard");
  ns = await testNamespace(env.kc, "guard");
});

const as = (role: "admin" | "editor") => ({ token: env.tokens[role] });
const errorOf = (reply: { json: unknown }) => (reply.json as { error: string }).error;
const envDefinition = (envName?: string) => ({
  type: "string",
  defaultValue: "--import=data:text/javascript,process.exit(42)",
  delivery: { envVar: { ...(envName === undefined ? {} : { name: envName }), selector } },
});
const envFlag = (name: string, envName?: string, namespace = ns) => ({
  name,
  namespace,
  clusterId: "local",
  ...envDefinition(envName),
});
const stored = async (namespace: string) =>
  (
    (await env.kc.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace,
      plural: FEATURE_FLAG.plural,
    })) as { items: { metadata: { name: string }; spec: unknown }[] }
  ).items;

describe("variables a runtime reads at start", () => {
  it.each(REFUSED_NAMES)("POST with envVar.name %s: 400 naming the field, for admins too", async (name) => {
    for (const role of ["editor", "admin"] as const) {
      const reply = await env.api.call("POST", "/api/v1/flags", {
        ...as(role),
        body: envFlag("boot", name),
      });
      expect(reply.status, reply.text).toBe(400);
      expect(errorOf(reply)).toMatch(new RegExp(`^delivery\\.envVar\\.name:? ${name} is refused`));
    }
    expect((await stored(ns)).map((f) => f.metadata.name)).not.toContain("boot");
  });

  it("PUT turning a flag's variable into NODE_OPTIONS: 400, the flag unchanged", async () => {
    const created = await env.api.call("POST", "/api/v1/flags", {
      ...as("editor"),
      body: envFlag("web-mode"),
    });
    expect(created.status, created.text).toBe(201);
    const before = await stored(ns);
    const reply = await env.api.call("PUT", `/api/v1/flags/${ns}/web-mode?clusterId=local`, {
      ...as("editor"),
      body: envDefinition("NODE_OPTIONS"),
    });
    expect(reply.status, reply.text).toBe(400);
    expect(errorOf(reply)).toContain("NODE_OPTIONS is refused");
    expect(await stored(ns)).toEqual(before);
  });

  it("an import delivering as LD_PRELOAD: 400, nothing imported", async () => {
    const before = await stored(ns);
    const reply = await env.api.call("POST", `/api/v1/flags/import?clusterId=local&namespace=${ns}`, {
      ...as("editor"),
      body: {
        delivery: { envVar: { name: "LD_PRELOAD", selector } },
        file: {
          flags: { preload: { state: "ENABLED", variants: { on: "/tmp/x.so" }, defaultVariant: "on" } },
        },
      },
    });
    expect(reply.status, reply.text).toBe(400);
    expect(errorOf(reply)).toContain("LD_PRELOAD is refused");
    expect(await stored(ns)).toEqual(before);
  });
});

describe("namespaces never delivered to", () => {
  it("refuses svc's own namespace (wherever installed) and kube-system with 400", async () => {
    for (const namespace of [env.systemNamespace, "kube-system"]) {
      const reply = await env.api.call("POST", "/api/v1/flags", {
        ...as("admin"),
        body: envFlag("takeover", "FLAG_TAKEOVER", namespace),
      });
      expect(reply.status, `${namespace}: ${reply.text}`).toBe(400);
      expect(errorOf(reply)).toMatch(/^namespace: /);
      expect((await stored(namespace)).map((f) => f.metadata.name)).not.toContain("takeover");
    }
  });
});

describe("the preview", () => {
  it("shows that a workload of a namespace labelled svc.io/flags=disabled gets nothing, no restart", async () => {
    const quiet = await testNamespace(env.kc, "guard-quiet");
    await env.kc
      .makeApiClient(CoreV1Api)
      .patchNamespace(
        { name: quiet, body: { metadata: { labels: { "svc.io/flags": "disabled" } } } },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
    await env.kc.makeApiClient(AppsV1Api).createNamespacedDeployment({
      namespace: quiet,
      body: {
        metadata: { name: "batch", labels: { app: "web" } },
        spec: {
          selector: { matchLabels: { pod: "batch" } },
          template: {
            metadata: { labels: { pod: "batch" } },
            spec: { containers: [{ name: "main", image: "example/main:1" }] },
          },
        },
      },
    });
    const reply = await eventually(
      () =>
        env.api.call("POST", "/api/v1/flags?dryRun=true", {
          ...as("editor"),
          body: envFlag("preview-me", "FLAG_PREVIEW", quiet),
        }),
      (r) => (r.json as { preview?: unknown[] }).preview?.length === 1,
      "the Deployment in the API's cache",
    );
    expect(reply.status, reply.text).toBe(200);
    expect((reply.json as { preview: unknown[] }).preview).toEqual([
      {
        kind: "Deployment",
        namespace: quiet,
        name: "batch",
        matchedBy: "labels",
        restarts: false,
        reasons: [],
      },
    ]);

    // The workload's own view plans with the same scope: no flag of its namespace is its.
    const created = await env.api.call("POST", "/api/v1/flags", {
      ...as("editor"),
      body: envFlag("quiet-flag", "FLAG_QUIET", quiet),
    });
    expect(created.status, created.text).toBe(201);
    const detail = await eventually(
      () => env.api.call("GET", `/api/v1/clusters/local/workloads/${quiet}/batch`, as("editor")),
      (r) => r.status === 200,
      "the workload's detail",
    );
    expect(detail.json).toMatchObject({ name: "batch", flags: [], injectedFlags: [] });
    const listed = await env.api.call(
      "GET",
      `/api/v1/clusters/local/workloads?namespace=${quiet}`,
      as("editor"),
    );
    expect(listed.json).toMatchObject([{ name: "batch", injectedFlags: [] }]);
  });
});

describe("ConfigMaps svc did not create", () => {
  const configMapDefinition = (configMapName: string) => ({
    type: "string",
    defaultValue: "true",
    delivery: { configMap: { configMapName, key: "use-forwarded-headers", selector } },
  });
  const configMapFlag = (name: string, configMapName: string) => ({
    name,
    namespace: ns,
    clusterId: "local",
    ...configMapDefinition(configMapName),
  });

  it("refuses one of someone else's with 409 naming the owner, and leaves it unchanged", async () => {
    const core = env.kc.makeApiClient(CoreV1Api);
    const created = await core.createNamespacedConfigMap({
      namespace: ns,
      body: {
        metadata: {
          name: "ingress-nginx-controller",
          labels: { "app.kubernetes.io/managed-by": "Helm" },
          annotations: { "meta.helm.sh/release-name": "ingress-nginx" },
        },
        data: { "use-forwarded-headers": "false" },
      },
    });
    const reply = await env.api.call("POST", "/api/v1/flags", {
      ...as("editor"),
      body: configMapFlag("forwarded", "ingress-nginx-controller"),
    });
    expect(reply.status, reply.text).toBe(409);
    expect(errorOf(reply)).toContain(
      "ConfigMap ingress-nginx-controller is owned by Helm release ingress-nginx",
    );
    const ok = await env.api.call("POST", "/api/v1/flags", {
      ...as("editor"),
      body: configMapFlag("forwarded", "svc-flags-new"),
    });
    expect(ok.status, ok.text).toBe(201);
    const put = await env.api.call("PUT", `/api/v1/flags/${ns}/forwarded?clusterId=local`, {
      ...as("editor"),
      body: configMapDefinition("ingress-nginx-controller"),
    });
    expect(put.status, put.text).toBe(409);
    const after = await core.readNamespacedConfigMap({ namespace: ns, name: "ingress-nginx-controller" });
    expect(JSON.stringify(after)).toBe(JSON.stringify(created));
  });

  it("accepts a ConfigMap svc created (labelled managed-by=svc), as before", async () => {
    await env.kc.makeApiClient(CoreV1Api).createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: "ui-flags", labels: { "app.kubernetes.io/managed-by": "svc" } }, data: {} },
    });
    const reply = await env.api.call("POST", "/api/v1/flags", {
      ...as("editor"),
      body: configMapFlag("theme", "ui-flags"),
    });
    expect(reply.status, reply.text).toBe(201);
  });
});

describe("the installation's env var name patterns", () => {
  let narrow: ClusterApi;
  beforeAll(async () => {
    narrow = await startClusterApi("guard-narrow", {
      delivery: { ...DEFAULT_DELIVERY_POLICY, envVarNames: ["APP_*"] },
    });
  });

  it("refuses a name (the default FLAG_<NAME> too) outside them with 400, accepts one inside", async () => {
    const post = (body: unknown) =>
      narrow.api.call("POST", "/api/v1/flags", { token: narrow.tokens.editor, body });
    const outside = await post(envFlag("checkout"));
    expect(outside.status, outside.text).toBe(400);
    expect(errorOf(outside)).toContain("FLAG_CHECKOUT is outside the names this installation allows (APP_*)");
    const inside = await post(envFlag("checkout", "APP_CHECKOUT"));
    expect(inside.status, inside.text).toBe(201);
  });
});
