// A second, real control plane registered with a ClusterConnection: the operator installs the
// CRD there, delivers that cluster's flags there only, and keeps both connections' status
// (Connected; Disconnected while its kube-apiserver is stopped; Error with bad credentials),
// recovering by itself.
import { readFile } from "node:fs/promises";
import diagnostics from "node:diagnostics_channel";
import {
  ApiextensionsV1Api,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  RbacAuthorizationV1Api,
  type KubeConfig,
  type V1PolicyRule,
} from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, CLUSTER_CONNECTION, type ClusterConnectionStatus } from "@svc/core";
import { registerControlPlane, startLocalControlPlane, type LocalControlPlane } from "@svc/localkube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import type { RunningOperator } from "../src/index.ts";
import {
  createWorkloads,
  flagClient,
  operatorScope,
  startOperator,
  type OperatorScope,
} from "./support/operator.ts";

const hub = testKubeConfig();
let remote: LocalControlPlane;
let remoteKc: KubeConfig;
let remoteKubeconfig: string;
let scope: OperatorScope;
let ns: string;
let operator: RunningOperator;

const connections = () => ({
  group: API_GROUP,
  version: "v1alpha1",
  namespace: scope.systemNamespace,
  plural: CLUSTER_CONNECTION.plural,
});
const statusOf = async (id: string) =>
  (
    (await hub.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({ ...connections(), name: id })) as {
      status?: ClusterConnectionStatus;
    }
  ).status;
const setCredentials = (kubeconfig: string) =>
  hub.makeApiClient(CoreV1Api).replaceNamespacedSecret({
    namespace: scope.systemNamespace,
    name: "svc-cluster-east",
    body: { metadata: { name: "svc-cluster-east" }, stringData: { kubeconfig } },
  });
const flagValue = async (kc: KubeConfig) =>
  (
    await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ namespace: ns, name: "web" })
  ).spec?.template.spec?.containers[0]?.env?.find((e) => e.name === "FLAG_REGION_ROUTING")?.value;

beforeAll(async () => {
  [remote, ns] = await Promise.all([startLocalControlPlane(), testNamespace(hub, "op-clusters")]);
  remoteKc = remote.kubeConfig();
  remoteKubeconfig = await readFile(remote.kubeconfigPath, "utf8");
  scope = await operatorScope(hub, "op-clusters", [ns]);
  // The same namespace name in both clusters, with the same workload: only the flag's own cluster gets it.
  await remoteKc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: ns } } });
  await createWorkloads(hub, ns, [{ kind: "Deployment", name: "web", labels: { app: "web" } }]);
  await createWorkloads(remoteKc, ns, [{ kind: "Deployment", name: "web", labels: { app: "web" } }]);
  await registerControlPlane(hub, remote, {
    id: "east",
    displayName: "East",
    systemNamespace: scope.systemNamespace,
    namespaces: [ns],
  });
  operator = await startOperator(scope);
}, 240_000);

afterAll(async () => {
  await operator.close();
  await remote.stop();
});

describe("registered clusters", () => {
  it("installs the FeatureFlag CRD where it is missing and reports both clusters Connected", async () => {
    const east = await eventually(
      () => statusOf("east"),
      (s) => s?.phase === "Connected",
      "east Connected",
    );
    expect(east?.kubernetesVersion).toMatch(/^v1\./);
    expect(east?.discoveredWorkloads).toBe(1);
    expect(east?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    const local = await eventually(
      () => statusOf("local"),
      (s) => s?.phase === "Connected",
      "local Connected",
    );
    expect(local?.discoveredWorkloads).toBe(1);
  });

  it("delivers a cluster's flags to that cluster's workloads only", async () => {
    await flagClient(remoteKc, ns).create("region-routing", {
      type: "boolean",
      defaultValue: "true",
      delivery: { envVar: { selector: { matchLabels: { app: "web" } } } },
    });
    await eventually(
      () => flagValue(remoteKc),
      (v) => v === "true",
      "the flag in the second cluster's web",
    );
    await operator.idle();
    expect(await flagValue(hub)).toBeUndefined();
  });

  it("turns Disconnected while its kube-apiserver is stopped, and Connected again by itself", async () => {
    await remote.stopApiServer();
    const down = await eventually(
      () => statusOf("east"),
      (s) => s?.phase === "Disconnected",
      "east Disconnected",
    );
    expect(down?.kubernetesVersion).toMatch(/^v1\./);
    await remote.startApiServer();
    await eventually(
      () => statusOf("east"),
      (s) => s?.phase === "Connected",
      "east Connected again",
    );
  });

  it("turns Error with rejected credentials, and Connected again once they are fixed", async () => {
    await setCredentials(remoteKubeconfig.replace(/token: "?[0-9a-f]+"?/, 'token: "not-a-valid-token"'));
    const refused = await eventually(
      () => statusOf("east"),
      (s) => s?.phase === "Error",
      "east Error",
    );
    expect(refused?.message).toMatch(/401/);
    expect(refused?.message).not.toMatch(/not-a-valid-token/);
    await setCredentials(remoteKubeconfig);
    await eventually(
      () => statusOf("east"),
      (s) => s?.phase === "Connected",
      "east Connected after the fix",
    );
  });

  it("stops every request to a cluster whose ClusterConnection is removed, and forgets its metrics", async () => {
    const requests = requestsTo(remote.server);
    try {
      // While registered, the registry probes the cluster (every 500 ms here) and watches it.
      await eventually(
        () => Promise.resolve(requests.count()),
        (count) => count > 0,
        "requests to east while it is registered",
      );
      expect(await metricsText()).toContain('svc_operator_cluster_phase{cluster="east",phase="Connected"} 1');
      await hub
        .makeApiClient(CustomObjectsApi)
        .deleteNamespacedCustomObject({ ...connections(), name: "east" });
      await eventually(
        metricsText,
        (text) => !/svc_operator_(cluster_phase|cached_objects)\{cluster="east"/.test(text),
        "east's phase and caches gone from the operator's metrics",
      );
      // Requests already sent may still end; from now on, none may start (six probe periods).
      requests.reset();
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(requests.paths()).toEqual([]);
    } finally {
      requests.close();
    }
  });

  it("retries installing the CRD where the credentials may not, and says why meanwhile", async () => {
    // The second cluster without svc's CRD, reached as a ServiceAccount that may do all svc needs but that.
    const extensions = remoteKc.makeApiClient(ApiextensionsV1Api);
    // The flag east kept has svc's finalizer, which no operator removes there any more.
    await flagClient(remoteKc, ns).patchMetadata("region-routing", { finalizers: null });
    await extensions.deleteCustomResourceDefinition({ name: "featureflags.svc.io" });
    await eventually(
      () => extensions.listCustomResourceDefinition(),
      (list) => !list.items.some((crd) => crd.metadata?.name === "featureflags.svc.io"),
      "the CRD gone from east",
    );
    const token = await serviceAccountToken(remoteKc, "svc-limited");
    await hub.makeApiClient(CoreV1Api).createNamespacedSecret({
      namespace: scope.systemNamespace,
      body: {
        metadata: { name: "svc-cluster-west" },
        stringData: { token, "ca.crt": caOf(remoteKubeconfig) },
      },
    });
    await hub.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      ...connections(),
      body: {
        apiVersion: API_GROUP_VERSION,
        kind: CLUSTER_CONNECTION.kind,
        metadata: { name: "west" },
        spec: {
          displayName: "West",
          apiServer: remote.server,
          authMethod: "serviceaccount",
          credentialRef: { name: "svc-cluster-west", key: "token" },
          namespaces: [ns],
        },
      },
    });
    const refused = await eventually(
      () => statusOf("west"),
      (s) => s?.phase === "Error" && s.message?.includes("installing svc's CRDs there failed") === true,
      "west Error, saying why the CRD is missing",
    );
    expect(refused?.message).toMatch(/customresourcedefinitions/);
    expect(refused?.message).not.toContain(token);
    // Granting the permission is all it takes: the next retry installs it and west connects.
    await grant(remoteKc, "svc-limited", "svc-crd-installer", [
      { apiGroups: ["apiextensions.k8s.io"], resources: ["customresourcedefinitions"], verbs: ["*"] },
    ]);
    await eventually(
      () => statusOf("west"),
      (s) => s?.phase === "Connected",
      "west Connected once the permission is granted",
      90_000,
    );
  }, 150_000);
});

/** Counts the requests this process starts to `server` (the registry's undici transport reports each). */
function requestsTo(server: string) {
  let seen: string[] = [];
  const origin = new URL(server).origin;
  const listener = (message: unknown) => {
    const request = (message as { request?: { origin?: string; path?: string } }).request;
    if (request?.origin !== undefined && new URL(request.origin).origin === origin)
      seen.push(request.path ?? "");
  };
  diagnostics.subscribe("undici:request:create", listener);
  return {
    count: () => seen.length,
    paths: () => [...seen],
    reset: () => {
      seen = [];
    },
    close: () => diagnostics.unsubscribe("undici:request:create", listener),
  };
}

async function metricsText(): Promise<string> {
  return (await fetch(`${operator.metricsUrl}/metrics`)).text();
}

/** The CA of a kubeconfig written by the harness (inline, base64). */
function caOf(kubeconfig: string): string {
  const data = /certificate-authority-data: "?([A-Za-z0-9+/=]+)"?/.exec(kubeconfig)?.[1] ?? "";
  return Buffer.from(data, "base64").toString("utf8");
}

/** Binds a new ClusterRole with `rules` to the ServiceAccount `name` of namespace default. */
async function grant(kc: KubeConfig, name: string, role: string, rules: V1PolicyRule[]): Promise<void> {
  const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createClusterRole({ body: { metadata: { name: role }, rules } });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name: role },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
      subjects: [{ kind: "ServiceAccount", name, namespace: "default" }],
    },
  });
}

/** A token of a new ServiceAccount allowed everything svc does in a cluster, but installing CRDs. */
async function serviceAccountToken(kc: KubeConfig, name: string): Promise<string> {
  const core = kc.makeApiClient(CoreV1Api);
  await core.createNamespacedServiceAccount({ namespace: "default", body: { metadata: { name } } });
  await grant(kc, name, `${name}-all-but-crds`, [
    {
      apiGroups: ["", "apps", "svc.io", "rbac.authorization.k8s.io", "events.k8s.io"],
      resources: ["*"],
      verbs: ["*"],
    },
  ]);
  const request = await core.createNamespacedServiceAccountToken({
    namespace: "default",
    name,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  return request.status?.token ?? "";
}
