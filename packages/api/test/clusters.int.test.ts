// Clusters over REST: a second real control plane registered with a kubeconfig, its namespaces,
// workloads and flags, and what the API answers while its kube-apiserver is down.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, API_VERSION, CLUSTER_CONNECTION, FEATURE_FLAG } from "@svc/core";
import { ensureNamespace, installCrds } from "@svc/kube";
import { startLocalControlPlane, type LocalControlPlane } from "@svc/localkube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, testNamespace } from "../../../test/support/kube.ts";
import { validFlagSpec } from "../../../test/support/flag-cases.ts";
import { startClusterApi, type ClusterApi } from "./support/cluster-api.ts";

let env: ClusterApi;
let remote: LocalControlPlane;
let remoteKubeconfig: string;
let localNs: string;
const REMOTE = "remote-a";
const REMOTE_NS = "shop";

beforeAll(async () => {
  env = await startClusterApi("clusters");
  localNs = await testNamespace(env.kc, "clusters");
  remote = await startLocalControlPlane();
  const kc = remote.kubeConfig();
  await installCrds(kc);
  await ensureNamespace(kc, REMOTE_NS);
  await kc.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace: REMOTE_NS,
    body: {
      metadata: { name: "web", labels: { app: "web" } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: {
            containers: [
              { name: "web", image: "nginx:1.27", env: [{ name: "DB_PASSWORD", value: "hunter2" }] },
            ],
          },
        },
      },
    },
  });
  remoteKubeconfig = await readFile(remote.kubeconfigPath, "utf8");
}, 180_000);

afterAll(async () => {
  await remote.stop();
});

const admin = () => ({ token: env.tokens.admin });

/**
 * A wait on the remote cluster that, when it times out, also tells what the remote's
 * kube-apiserver said of its watch cache and etcd meanwhile (a 429 "storage is (re)initializing"
 * is its cacher not ready: the log names the resource and why).
 */
async function withApiServerLog<T>(waiting: Promise<T>): Promise<T> {
  try {
    return await waiting;
  } catch (error) {
    const log = await readFile(join(remote.dir, "kube-apiserver.log"), "utf8").catch(() => "");
    const lines = log.split("\n").filter((line) => /cacher|initializ|etcd|watch/i.test(line));
    throw new Error(
      `${(error as Error).message}\nkube-apiserver of the remote:\n${lines.slice(-25).join("\n") || "(no line on its cacher, etcd or watches at --v=0)"}`,
      { cause: error },
    );
  }
}

interface ClusterReply {
  id: string;
  displayName: string;
  apiServer: string;
  status: string;
  kubernetesVersion: string;
  discoveredWorkloads: number;
  local: boolean;
}

async function cluster(id: string): Promise<ClusterReply> {
  const reply = await env.api.call("GET", `/api/v1/clusters/${id}`, admin());
  return reply.json as ClusterReply;
}

describe("the local cluster", () => {
  it("is listed as local without any registration, and cannot be removed", async () => {
    const list = (await env.api.call("GET", "/api/v1/clusters", admin())).json as ClusterReply[];
    expect(list[0]).toMatchObject({ id: "local", local: true, status: "Connected" });
    expect(list[0]?.kubernetesVersion).toMatch(/^v1\.\d+\.\d+/);
    const reply = await env.api.call("DELETE", "/api/v1/clusters/local", admin());
    expect(reply.status).toBe(400);
    expect((reply.json as { error: string }).error).toContain("local");
  });
});

describe("a registered cluster", () => {
  it("refuses bad registrations with 400 naming the field, writing nothing", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ id: "Bad_Id", displayName: "x", apiServer: remote.server, kubeconfig: remoteKubeconfig }, "id"],
      [
        { id: "bad-url", displayName: "x", apiServer: "not a url", kubeconfig: remoteKubeconfig },
        "apiServer",
      ],
      [{ id: "no-name", apiServer: remote.server, kubeconfig: remoteKubeconfig }, "displayName"],
    ];
    for (const [body, field] of cases) {
      const reply = await env.api.call("POST", "/api/v1/clusters", { ...admin(), body });
      expect(reply.status, reply.text).toBe(400);
      expect((reply.json as { error: string }).error).toContain(field);
    }
    const secrets = await env.kc
      .makeApiClient(CoreV1Api)
      .listNamespacedSecret({ namespace: env.systemNamespace });
    expect(secrets.items).toEqual([]);
  });

  it("registers with a kubeconfig, connects, and never returns or audits the credentials", async () => {
    const reply = await env.api.call("POST", "/api/v1/clusters", {
      ...admin(),
      body: {
        id: REMOTE,
        displayName: "Remote A",
        apiServer: remote.server,
        authMethod: "kubeconfig",
        kubeconfig: remoteKubeconfig,
        labels: { env: "test" },
      },
    });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.json).toMatchObject({
      id: REMOTE,
      displayName: "Remote A",
      apiServer: remote.server,
      local: false,
    });
    expect(reply.text).not.toContain("client-key-data");
    expect(reply.text).not.toContain("token");
    const connected = await withApiServerLog(
      eventually(
        () => cluster(REMOTE),
        // Once (1 in about 10 fresh runs, machine loaded) Connected was seen with 0 workloads
        // before 1: waited for here, noted in the closing note of 2026-11-22 to be looked into.
        (c) => c.status === "Connected" && c.kubernetesVersion !== "" && c.discoveredWorkloads === 1,
        "remote connected, its version read and its workload counted",
        // Once in a fresh-clone make test the remote answered its watches 429 "storage is
        // (re)initializing" for all of 30 s: its own watch cache not filled yet, while the
        // registry retried every second. That wait is the API server's; the registry's part
        // (connect within a second of being served) is what the bound is for.
        60_000,
      ),
    );
    expect(connected.kubernetesVersion).toMatch(/^v1\./);
    expect(connected.discoveredWorkloads).toBe(1);
    const again = await env.api.call("POST", "/api/v1/clusters", {
      ...admin(),
      body: { id: REMOTE, displayName: "again", apiServer: remote.server, kubeconfig: remoteKubeconfig },
    });
    expect(again.status).toBe(409);
    const audit = await env.api.call("GET", "/api/v1/audit?resource=cluster", admin());
    expect(audit.text).toContain(REMOTE);
    expect(audit.text).not.toContain("BEGIN");
    expect(audit.text).not.toContain(remoteKubeconfig.slice(0, 40));
  });

  it("shows its namespaces (system ones excluded) and workloads (secret-looking values redacted)", async () => {
    const namespaces = await env.api.call("GET", `/api/v1/clusters/${REMOTE}/namespaces`, admin());
    expect(namespaces.json).toContain(REMOTE_NS);
    expect(namespaces.json).not.toContain("kube-system");
    const workloads = await env.api.call(
      "GET",
      `/api/v1/clusters/${REMOTE}/workloads?namespace=${REMOTE_NS}`,
      admin(),
    );
    expect(workloads.status).toBe(200);
    expect(workloads.json).toMatchObject([
      {
        clusterId: REMOTE,
        namespace: REMOTE_NS,
        name: "web",
        kind: "Deployment",
        images: ["nginx:1.27"],
        containers: [{ name: "web", env: [{ name: "DB_PASSWORD", value: "<redacted>" }] }],
      },
    ]);
    expect(workloads.text).not.toContain("hunter2");
  });

  it("holds flags created with its clusterId, and the local cluster does not", async () => {
    const create = await env.api.call("POST", "/api/v1/flags", {
      ...admin(),
      body: { name: "remote-only", namespace: REMOTE_NS, clusterId: REMOTE, ...validFlagSpec },
    });
    expect(create.status, create.text).toBe(201);
    const remoteFlag: unknown = await remote
      .kubeConfig()
      .makeApiClient(CustomObjectsApi)
      .getNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        namespace: REMOTE_NS,
        plural: FEATURE_FLAG.plural,
        name: "remote-only",
      });
    expect(remoteFlag).toMatchObject({ spec: { defaultValue: "true" } });
    const local = await env.api.call(
      "GET",
      `/api/v1/flags/${REMOTE_NS}/remote-only?clusterId=local`,
      admin(),
    );
    expect(local.status).toBe(404);
    const detail = await env.api.call(
      "GET",
      `/api/v1/clusters/${REMOTE}/workloads/${REMOTE_NS}/web`,
      admin(),
    );
    expect(JSON.stringify(detail.json)).toContain("remote-only");
  });

  it("answers 502 within a few seconds while its kube-apiserver is down; the local cluster keeps answering", async () => {
    await remote.stopApiServer();
    try {
      await eventually(
        () => env.api.call("GET", `/api/v1/flags?clusterId=${REMOTE}`, admin()),
        (reply) => reply.status === 502,
        "502 for the stopped cluster",
        15_000,
      );
      for (const path of [
        `/api/v1/clusters/${REMOTE}/namespaces`,
        `/api/v1/clusters/${REMOTE}/workloads`,
        `/api/v1/flags/${REMOTE_NS}/remote-only?clusterId=${REMOTE}`,
      ]) {
        const reply = await env.api.call("GET", path, admin());
        expect(reply.status, path).toBe(502);
        expect((reply.json as { error: string }).error).toContain(REMOTE);
      }
      const write = await env.api.call("POST", "/api/v1/flags", {
        ...admin(),
        body: { name: "while-down", namespace: REMOTE_NS, clusterId: REMOTE, ...validFlagSpec },
      });
      expect(write.status).toBe(502);
      expect((await cluster(REMOTE)).status).toBe("Disconnected");
      const localFlags = await env.api.call(
        "GET",
        `/api/v1/flags?clusterId=local&namespace=${localNs}`,
        admin(),
      );
      expect(localFlags.status).toBe(200);
      const all = await env.api.call("GET", "/api/v1/flags", admin());
      expect(all.status).toBe(200);
      expect(all.headers.get("x-svc-unavailable-clusters")).toBe(REMOTE);
    } finally {
      await remote.startApiServer();
    }
    await eventually(
      () => env.api.call("GET", `/api/v1/flags?clusterId=${REMOTE}`, admin()),
      (reply) => reply.status === 200,
      "the cluster back after its kube-apiserver returned",
      60_000,
    );
  });

  it("turns Error with a message when its credentials are refused", async () => {
    const reply = await env.api.call("POST", "/api/v1/clusters", {
      ...admin(),
      body: {
        id: "bad-creds",
        displayName: "Bad credentials",
        apiServer: remote.server,
        authMethod: "kubeconfig",
        kubeconfig: remoteKubeconfig.replace(/token: "[^"]+"/, 'token: "wrong-token"'),
      },
    });
    expect(reply.status, reply.text).toBe(201);
    const failed = await eventually(
      () => cluster("bad-creds"),
      (c) => c.status === "Error",
      "Error phase",
      30_000,
    );
    expect(JSON.stringify(failed)).toMatch(/401|Unauthorized|credentials/i);
  });

  it("registers SPEC.md's body without credentials: Error naming them until their Secret exists", async () => {
    const id = "no-creds";
    const body = { id, displayName: "No credentials yet", apiServer: remote.server };
    const created = await env.api.call("POST", "/api/v1/clusters", { ...admin(), body });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject(body);
    const waiting = await eventually(
      () => env.api.call("GET", `/api/v1/clusters/${id}`, admin()),
      (reply) => (reply.json as ClusterReply).status === "Error",
      "Error phase",
      30_000,
    );
    expect((waiting.json as { message: string }).message).toBe(
      `no credentials: Secret svc-cluster-${id} (key token) not found in ${env.systemNamespace}`,
    );
    const again = await env.api.call("POST", "/api/v1/clusters", { ...admin(), body });
    expect(again.status, again.text).toBe(409);

    // Adding the credentials the message names connects the cluster, with no other step.
    const token = /token: "([^"]+)"/.exec(remoteKubeconfig)?.[1] ?? "";
    const caData = /certificate-authority-data: "([^"]+)"/.exec(remoteKubeconfig)?.[1] ?? "";
    const core = env.kc.makeApiClient(CoreV1Api);
    await core.createNamespacedSecret({
      namespace: env.systemNamespace,
      body: {
        metadata: { name: `svc-cluster-${id}` },
        data: { token: Buffer.from(token).toString("base64"), "ca.crt": caData },
      },
    });
    await withApiServerLog(
      eventually(
        () => cluster(id),
        (c) => c.status === "Connected",
        "Connected once the Secret exists",
        30_000,
      ),
    );

    const deleted = await env.api.call("DELETE", `/api/v1/clusters/${id}`, admin());
    expect(deleted.status, deleted.text).toBe(200);
    expect((await env.api.call("GET", `/api/v1/clusters/${id}`, admin())).status).toBe(404);
    // The Secret was the user's, not svc's: it stays.
    const secret = await core.readNamespacedSecret({
      namespace: env.systemNamespace,
      name: `svc-cluster-${id}`,
    });
    expect(secret.metadata?.name).toBe(`svc-cluster-${id}`);
    await core.deleteNamespacedSecret({ namespace: env.systemNamespace, name: `svc-cluster-${id}` });
  });

  it("is removed with DELETE: no longer listed, its Secret gone, its flags left in place", async () => {
    const reply = await env.api.call("DELETE", `/api/v1/clusters/${REMOTE}`, admin());
    expect(reply.status).toBe(200);
    expect((await env.api.call("GET", `/api/v1/clusters/${REMOTE}`, admin())).status).toBe(404);
    expect((await env.api.call("GET", `/api/v1/flags?clusterId=${REMOTE}`, admin())).status).toBe(404);
    const secrets = await env.kc
      .makeApiClient(CoreV1Api)
      .listNamespacedSecret({ namespace: env.systemNamespace });
    expect(secrets.items.map((s) => s.metadata?.name)).not.toContain(`svc-cluster-${REMOTE}`);
    const stillThere: unknown = await remote
      .kubeConfig()
      .makeApiClient(CustomObjectsApi)
      .listNamespacedCustomObject({
        group: API_GROUP,
        version: API_VERSION,
        namespace: REMOTE_NS,
        plural: FEATURE_FLAG.plural,
      });
    expect(JSON.stringify(stillThere)).toContain("remote-only");
  });

  it("makes the ClusterConnection own its credential Secret: deleted any way, it takes the Secret along", async () => {
    const id = "owned";
    const body = { id, displayName: "Owned", apiServer: remote.server, kubeconfig: remoteKubeconfig };
    const created = await env.api.call("POST", "/api/v1/clusters", { ...admin(), body });
    expect(created.status, created.text).toBe(201);
    const core = env.kc.makeApiClient(CoreV1Api);
    const objects = env.kc.makeApiClient(CustomObjectsApi);
    const where = {
      group: API_GROUP,
      version: API_VERSION,
      namespace: env.systemNamespace,
      plural: CLUSTER_CONNECTION.plural,
      name: id,
    };
    const connection = (await objects.getNamespacedCustomObject(where)) as { metadata: { uid: string } };
    const secret = await core.readNamespacedSecret({
      namespace: env.systemNamespace,
      name: `svc-cluster-${id}`,
    });
    expect(secret.metadata?.ownerReferences).toEqual([
      {
        apiVersion: API_GROUP_VERSION,
        kind: CLUSTER_CONNECTION.kind,
        name: id,
        uid: connection.metadata.uid,
      },
    ]);

    // Deleted behind svc's back (kubectl delete clusterconnection): Kubernetes' garbage
    // collector (kube-controller-manager) removes the Secret.
    await objects.deleteNamespacedCustomObject(where);
    await eventually(
      async () =>
        (await core.listNamespacedSecret({ namespace: env.systemNamespace })).items.map(
          (s) => s.metadata?.name,
        ),
      (names) => !names.includes(`svc-cluster-${id}`),
      "the credential Secret garbage-collected with its ClusterConnection",
    );
  });
});
