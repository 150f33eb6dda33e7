// An operator under test, confined to the test file's namespaces: its own system namespace
// (so its ClusterConnection, Lease and registry are seen by no other test file) holding a
// local ClusterConnection that lists only the namespaces the file works in.
import { validOrThrow } from "@svc/core/schema/field-errors";
import {
  AppsV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from "@kubernetes/client-node";
import {
  API_GROUP,
  API_GROUP_VERSION,
  CLUSTER_CONNECTION,
  FEATURE_FLAG,
  localClusterConnection,
} from "@svc/core";
import { installCrds } from "@svc/kube";
import { pino, type Logger } from "pino";
import { parseOperatorConfig, runOperator, type RunningOperator } from "../../src/index.ts";
import { testNamespace } from "../../../../test/support/kube.ts";

export interface OperatorScope {
  kc: KubeConfig;
  systemNamespace: string;
  namespaces: string[];
}

/** Creates the system namespace and the local ClusterConnection limited to `namespaces`. */
export async function operatorScope(
  kc: KubeConfig,
  prefix: string,
  namespaces: string[],
): Promise<OperatorScope> {
  await installCrds(kc);
  const systemNamespace = await testNamespace(kc, `${prefix}-sys`);
  const connection = localClusterConnection({
    id: "local",
    apiServer: kc.getCurrentCluster()?.server ?? "",
    systemNamespace,
  });
  await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: API_GROUP,
    version: "v1alpha1",
    namespace: systemNamespace,
    plural: CLUSTER_CONNECTION.plural,
    body: { ...connection, spec: { ...connection.spec, namespaces } },
  });
  return { kc, systemNamespace, namespaces };
}

export async function startOperator(
  scope: OperatorScope,
  settings: Record<string, string> = {},
  {
    waitUntilLeading = true,
    log = pino({ level: process.env["SVC_TEST_LOG_LEVEL"] ?? "silent" }),
  }: { waitUntilLeading?: boolean; log?: Logger } = {},
): Promise<RunningOperator> {
  const operator = await runOperator({
    ...validOrThrow(
      parseOperatorConfig({
        SVC_OPERATOR_METRICS_PORT: "0",
        SVC_OPERATOR_METRICS_HOST: "127.0.0.1",
        SVC_OPERATOR_LEADER_ELECTION: "false",
        ...settings,
      }),
    ),
    systemNamespace: scope.systemNamespace,
    kubeConfig: scope.kc,
    log,
    registry: { probeIntervalMs: 500 },
  });
  if (waitUntilLeading) await operator.ready;
  return operator;
}

export type Labels = Record<string, string>;

/** A Deployment, StatefulSet or DaemonSet with two containers and an init container. */
export function workloadBody(name: string, labels: Labels, podLabels: Labels = {}) {
  const selector = { app: name };
  return {
    metadata: { name, labels },
    spec: {
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: { ...selector, ...podLabels } },
        spec: {
          initContainers: [{ name: "setup", image: "example/setup:1" }],
          containers: [
            { name: "main", image: "example/main:1", env: [{ name: "MODE", value: "fast" }] },
            { name: "helper", image: "example/helper:1" },
          ],
        },
      },
    },
  };
}

export async function createWorkloads(
  kc: KubeConfig,
  namespace: string,
  workloads: {
    kind: "Deployment" | "StatefulSet" | "DaemonSet";
    name: string;
    labels: Labels;
    podLabels?: Labels;
  }[],
): Promise<void> {
  const apps = kc.makeApiClient(AppsV1Api);
  for (const { kind, name, labels, podLabels } of workloads) {
    const body = workloadBody(name, labels, podLabels);
    if (kind === "Deployment") await apps.createNamespacedDeployment({ namespace, body });
    else if (kind === "StatefulSet")
      await apps.createNamespacedStatefulSet({
        namespace,
        body: { ...body, spec: { ...body.spec, serviceName: name } },
      });
    else await apps.createNamespacedDaemonSet({ namespace, body });
  }
}

export function flagClient(kc: KubeConfig, namespace: string) {
  const objects = kc.makeApiClient(CustomObjectsApi);
  const target = { group: API_GROUP, version: "v1alpha1", namespace, plural: FEATURE_FLAG.plural };
  return {
    create: (name: string, spec: Record<string, unknown>) =>
      objects.createNamespacedCustomObject({
        ...target,
        body: { apiVersion: API_GROUP_VERSION, kind: FEATURE_FLAG.kind, metadata: { name }, spec },
      }),
    get: async (name: string) =>
      (await objects.getNamespacedCustomObject({ ...target, name })) as {
        metadata: { resourceVersion: string; generation?: number; uid?: string; finalizers?: string[] };
        status?: {
          phase?: string;
          observedGeneration?: number;
          targets?: { kind: string; name: string; outcome?: string }[];
        };
      },
    list: async () =>
      ((await objects.listNamespacedCustomObject(target)) as { items: { metadata: { name: string } }[] })
        .items,
    /** A merge patch of the spec: only the fields given change. */
    patchSpec: (name: string, spec: Record<string, unknown>) =>
      objects.patchNamespacedCustomObject(
        { ...target, name, body: { spec } },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      ),
    /** A merge patch of the metadata (`finalizers: null` drops them all). */
    patchMetadata: (name: string, metadata: Record<string, unknown>) =>
      objects.patchNamespacedCustomObject(
        { ...target, name, body: { metadata } },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      ),
    remove: (name: string) => objects.deleteNamespacedCustomObject({ ...target, name }),
  };
}
