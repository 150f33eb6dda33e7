// Workload discovery and the blast-radius preview over REST, on workloads in a real kube-apiserver.
import { AppsV1Api } from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import { eventually, testNamespace } from "../../../test/support/kube.ts";
import { startClusterApi, type ClusterApi } from "./support/cluster-api.ts";

let env: ClusterApi;
let ns: string;
let otherNs: string;

type Labels = Record<string, string>;

function podTemplate(app: string, labels: Labels) {
  return {
    selector: { matchLabels: { app } },
    template: {
      metadata: { labels: { app, ...labels } },
      spec: {
        containers: [
          {
            name: "main",
            image: `example/${app}:1`,
            env: [
              { name: "API_TOKEN", value: "s3cret" },
              { name: "MODE", value: "fast" },
              { name: "FROM_SECRET", valueFrom: { secretKeyRef: { name: "creds", key: "password" } } },
            ],
            envFrom: [{ configMapRef: { name: "settings" } }],
          },
        ],
      },
    },
  };
}

async function workloads(namespace: string): Promise<void> {
  const apps = env.kc.makeApiClient(AppsV1Api);
  const meta = (name: string, labels: Labels) => ({ name, labels });
  // Matches {team: a} by its own labels only.
  await apps.createNamespacedDeployment({
    namespace,
    body: { metadata: meta("dep-own", { team: "a" }), spec: { replicas: 1, ...podTemplate("dep-own", {}) } },
  });
  // Matches only by its pod template's labels.
  await apps.createNamespacedStatefulSet({
    namespace,
    body: {
      metadata: meta("sts-template", {}),
      spec: { serviceName: "sts-template", replicas: 1, ...podTemplate("sts-template", { team: "a" }) },
    },
  });
  await apps.createNamespacedDaemonSet({
    namespace,
    body: { metadata: meta("ds-both", { team: "a" }), spec: podTemplate("ds-both", { team: "a" }) },
  });
  // Carries a different value for the key: no match.
  await apps.createNamespacedDeployment({
    namespace,
    body: {
      metadata: meta("dep-other", { team: "b" }),
      spec: { replicas: 1, ...podTemplate("dep-other", {}) },
    },
  });
}

beforeAll(async () => {
  env = await startClusterApi("workloads");
  ns = await testNamespace(env.kc, "workloads");
  otherNs = await testNamespace(env.kc, "workloads-other");
  await workloads(ns);
  await workloads(otherNs);
  await eventually(
    () =>
      env.api.call("GET", `/api/v1/clusters/local/workloads?namespace=${ns}`, { token: env.tokens.viewer }),
    (reply) => Array.isArray(reply.json) && reply.json.length === 4,
    "the four workloads in the API",
    10_000,
  );
});

describe("workloads", () => {
  it("lists Deployments, StatefulSets and DaemonSets with images, references and redacted secrets", async () => {
    const reply = await env.api.call("GET", `/api/v1/clusters/local/workloads?namespace=${ns}`, {
      token: env.tokens.viewer,
    });
    expect(reply.status).toBe(200);
    const list = reply.json as { kind: string; name: string }[];
    expect(list.map((w) => `${w.kind}/${w.name}`).sort()).toEqual([
      "DaemonSet/ds-both",
      "Deployment/dep-other",
      "Deployment/dep-own",
      "StatefulSet/sts-template",
    ]);
    const dep = list.find((w) => w.name === "dep-own");
    expect(dep).toMatchObject({
      clusterId: "local",
      namespace: ns,
      labels: { team: "a" },
      images: ["example/dep-own:1"],
      configMapRefs: ["settings"],
      secretRefs: ["creds"],
      containers: [
        {
          name: "main",
          env: [
            { name: "API_TOKEN", value: "<redacted>" },
            // A viewer sees the name of a literal variable, not its value (workload-env.int.test.ts).
            { name: "MODE", value: "<redacted>" },
            { name: "FROM_SECRET", valueFrom: { secretKeyRef: { name: "creds", key: "password" } } },
          ],
        },
      ],
    });
    expect(reply.text).not.toContain("s3cret");
  });

  it("shows one workload with the flags whose selectors match it; 404 for an unknown one", async () => {
    const flag = await env.api.call("POST", "/api/v1/flags", {
      token: env.tokens.editor,
      body: {
        name: "team-a",
        namespace: ns,
        clusterId: "local",
        type: "boolean",
        defaultValue: "true",
        delivery: { envVar: { selector: { matchLabels: { team: "a" } } } },
      },
    });
    expect(flag.status, flag.text).toBe(201);
    const detail = await env.api.call("GET", `/api/v1/clusters/local/workloads/${ns}/sts-template`, {
      token: env.tokens.viewer,
    });
    expect(detail.status, detail.text).toBe(200);
    expect(JSON.stringify(detail.json)).toContain("team-a");
    const other = await env.api.call("GET", `/api/v1/clusters/local/workloads/${ns}/dep-other`, {
      token: env.tokens.viewer,
    });
    expect(JSON.stringify(other.json)).not.toContain("team-a");
    const missing = await env.api.call("GET", `/api/v1/clusters/local/workloads/${ns}/nothing`, {
      token: env.tokens.viewer,
    });
    expect(missing.status).toBe(404);
    expect(
      (await env.api.call("GET", "/api/v1/clusters/nowhere/workloads", { token: env.tokens.viewer })).status,
    ).toBe(404);
  });

  it("excludes system namespaces from the namespace list", async () => {
    const reply = await env.api.call("GET", "/api/v1/clusters/local/namespaces", {
      token: env.tokens.viewer,
    });
    const names = reply.json as string[];
    expect(names).toContain(ns);
    for (const system of ["kube-system", "kube-public", "kube-node-lease", env.systemNamespace]) {
      expect(names).not.toContain(system);
    }
    expect(names).toEqual([...names].sort());
  });
});

describe("blast-radius preview (dryRun)", () => {
  const selector = { matchLabels: { team: "a" } };
  it.each([
    ["envVar", { envVar: { selector } }],
    ["configMap", { configMap: { configMapName: "flags", key: "preview", selector } }],
    ["sidecar", { sidecar: { selector } }],
  ])(
    "names exactly the matching workloads of the flag's namespace for %s, all restarting",
    async (kind, delivery) => {
      const reply = await env.api.call("POST", "/api/v1/flags?dryRun=true", {
        token: env.tokens.editor,
        body: {
          name: `preview-${kind.toLowerCase()}`,
          namespace: ns,
          clusterId: "local",
          type: "integer",
          defaultValue: "1",
          delivery,
        },
      });
      expect(reply.status, reply.text).toBe(200);
      const { preview } = reply.json as {
        preview: { kind: string; name: string; namespace: string; restarts: boolean }[];
      };
      expect(preview.map((p) => `${p.kind}/${p.name}`).sort()).toEqual([
        "DaemonSet/ds-both",
        "Deployment/dep-own",
        "StatefulSet/sts-template",
      ]);
      expect(preview.every((p) => p.namespace === ns && p.restarts)).toBe(true);
      // A dry run writes nothing.
      const read = await env.api.call(
        "GET",
        `/api/v1/flags/${ns}/preview-${kind.toLowerCase()}?clusterId=local`,
        {
          token: env.tokens.editor,
        },
      );
      expect(read.status).toBe(404);
    },
  );

  it("previews an update of an existing flag over the same targets, writing nothing", async () => {
    const list = await env.api.call("GET", `/api/v1/flags/${ns}/team-a?clusterId=local`, {
      token: env.tokens.editor,
    });
    const flag = list.json as Record<string, unknown>;
    const reply = await env.api.call("PUT", `/api/v1/flags/${ns}/team-a?clusterId=local&dryRun=true`, {
      token: env.tokens.editor,
      body: { ...flag, description: "only words" },
    });
    expect(reply.status, reply.text).toBe(200);
    const { preview } = reply.json as { preview: { name: string }[] };
    expect(preview.map((p) => p.name).sort()).toEqual(["dep-own", "ds-both", "sts-template"]);
    const after = await env.api.call("GET", `/api/v1/flags/${ns}/team-a?clusterId=local`, {
      token: env.tokens.editor,
    });
    expect(after.json).toEqual(flag);
  });
});
