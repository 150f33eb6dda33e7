// A second, real control plane registered with a ClusterConnection: the operator installs the
// CRD there, delivers that cluster's flags there only, and keeps both connections' status
// (Connected; Disconnected while its kube-apiserver is stopped; Error with bad credentials),
// recovering by itself.
import { readFile } from "node:fs/promises";
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, CLUSTER_CONNECTION, type ClusterConnectionStatus } from "@svc/core";
import { startLocalControlPlane, type LocalControlPlane } from "@svc/kube/testing";
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
  await hub.makeApiClient(CoreV1Api).createNamespacedSecret({
    namespace: scope.systemNamespace,
    body: { metadata: { name: "svc-cluster-east" }, stringData: { kubeconfig: remoteKubeconfig } },
  });
  await hub.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    ...connections(),
    body: {
      apiVersion: API_GROUP_VERSION,
      kind: CLUSTER_CONNECTION.kind,
      metadata: { name: "east" },
      spec: {
        displayName: "East",
        apiServer: remote.server,
        authMethod: "kubeconfig",
        credentialRef: { name: "svc-cluster-east", key: "kubeconfig" },
        namespaces: [ns],
      },
    },
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
});
