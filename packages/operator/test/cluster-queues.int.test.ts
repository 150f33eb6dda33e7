// Each cluster has its own work queue: a cluster whose writes hang (held by a proxy in front of
// its kube-apiserver) holds its own workers only, and a flag change in another cluster is
// delivered meanwhile. With one queue for every cluster, the held writes took every worker.
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, CLUSTER_CONNECTION, type ClusterConnectionStatus } from "@svc/core";
import { waitFor } from "@svc/kube";
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import type { RunningOperator } from "../src/index.ts";
import { startApiServerProxy, type ApiServerProxy } from "./support/api-server-proxy.ts";
import { createWorkloads, flagClient, operatorScope, startOperator } from "./support/operator.ts";

const hub = testKubeConfig();
const apps = hub.makeApiClient(AppsV1Api);
let fast: string;
let slow: string;
let proxy: ApiServerProxy;
let operator: RunningOperator;

/** The flag's variable in the main container of a Deployment, read from the kube-apiserver itself. */
const flagEnv = async (namespace: string, name: string, variable: string) =>
  (await apps.readNamespacedDeployment({ namespace, name })).spec?.template.spec?.containers
    .find((container) => container.name === "main")
    ?.env?.find((env) => env.name === variable)?.value;

beforeAll(async () => {
  [fast, slow] = await Promise.all([
    testNamespace(hub, "op-queues-fast"),
    testNamespace(hub, "op-queues-slow"),
  ]);
  const scope = await operatorScope(hub, "op-queues", [fast]);
  await createWorkloads(hub, fast, [{ kind: "Deployment", name: "web", labels: { team: "a" } }]);
  await createWorkloads(hub, slow, [
    { kind: "Deployment", name: "api", labels: { team: "b" } },
    { kind: "Deployment", name: "worker", labels: { team: "b" } },
  ]);
  // The slow cluster: the same kube-apiserver, reached through the proxy, for its own namespace.
  proxy = await startApiServerProxy(hub);
  await hub.makeApiClient(CoreV1Api).createNamespacedSecret({
    namespace: scope.systemNamespace,
    body: {
      metadata: { name: "svc-cluster-slow" },
      stringData: { kubeconfig: proxy.kubeConfig.exportConfig() },
    },
  });
  const connections = {
    group: API_GROUP,
    version: "v1alpha1",
    namespace: scope.systemNamespace,
    plural: CLUSTER_CONNECTION.plural,
  };
  await hub.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    ...connections,
    body: {
      apiVersion: API_GROUP_VERSION,
      kind: CLUSTER_CONNECTION.kind,
      metadata: { name: "slow" },
      spec: {
        displayName: "Slow",
        apiServer: proxy.kubeConfig.getCurrentCluster()?.server,
        authMethod: "kubeconfig",
        credentialRef: { name: "svc-cluster-slow", key: "kubeconfig" },
        namespaces: [slow],
      },
    },
  });
  // One worker per queue, and writes never time out: a held write keeps its worker.
  operator = await startOperator(scope, {
    SVC_OPERATOR_CONCURRENCY: "1",
    SVC_OPERATOR_REQUEST_TIMEOUT: "5m",
  });
  await eventually(
    async () =>
      (
        (await hub
          .makeApiClient(CustomObjectsApi)
          .getNamespacedCustomObject({ ...connections, name: "slow" })) as {
          status?: ClusterConnectionStatus;
        }
      ).status?.phase,
    (phase) => phase === "Connected",
    "the slow cluster Connected",
  );
  await operator.idle();
}, 120_000);

afterAll(async () => {
  proxy.release();
  await operator.close();
  await proxy.close();
});

it("delivers a flag in one cluster while another cluster's writes hang", async () => {
  proxy.hold((request) => request.method !== "GET");
  await flagClient(hub, slow).create("slow-path", {
    type: "boolean",
    defaultValue: "true",
    delivery: { envVar: { selector: { matchLabels: { team: "b" } } } },
  });
  await waitFor(
    () => proxy.held().length,
    (held) => held > 0,
    { what: "a write to the slow cluster held", timeoutMs: 30_000, intervalMs: 20 },
  );

  await flagClient(hub, fast).create("fast-path", {
    type: "boolean",
    defaultValue: "true",
    delivery: { envVar: { selector: { matchLabels: { team: "a" } } } },
  });
  await eventually(
    () => flagEnv(fast, "web", "FLAG_FAST_PATH"),
    (value) => value === "true",
    "FLAG_FAST_PATH delivered in the fast cluster",
    30_000,
  );
  // Delivered while the slow cluster's work is still held: none of its workloads has its flag yet.
  expect(proxy.held().length).toBeGreaterThan(0);
  expect(await Promise.all(["api", "worker"].map((name) => flagEnv(slow, name, "FLAG_SLOW_PATH")))).toEqual([
    undefined,
    undefined,
  ]);

  proxy.release();
  await operator.idle();
  expect(await Promise.all(["api", "worker"].map((name) => flagEnv(slow, name, "FLAG_SLOW_PATH")))).toEqual([
    "true",
    "true",
  ]);
});
