// What the cluster registry's integration tests share: registering clusters in a hub, flags and
// workloads to cache, and waits on the registry.
import { request } from "node:https";
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, API_VERSION, CLUSTER_CONNECTION, FEATURE_FLAG } from "@svc/core";
import {
  waitFor,
  type ClusterHealth,
  type ClusterRegistry,
  type ConnectedCluster,
  type FeatureFlagResource,
} from "@svc/kube";
import { validFlagSpec } from "../../../../test/support/flag-cases.ts";
import { eventually } from "../../../../test/support/kube.ts";

export const flagsApi = { group: API_GROUP, version: API_VERSION, plural: FEATURE_FLAG.plural };
export const connectionsApi = { group: API_GROUP, version: API_VERSION, plural: CLUSTER_CONNECTION.plural };

/**
 * A ClusterConnection `id` in the hub's `systemNamespace`, as users register clusters; with
 * `secret`, also the Secret svc-cluster-<id> holding it, referenced by its first key (a
 * `kubeconfig` key selects the kubeconfig method).
 */
export async function registerCluster(
  hub: KubeConfig,
  systemNamespace: string,
  id: string,
  spec: Record<string, unknown>,
  secret?: Record<string, string>,
): Promise<void> {
  const secretName = `svc-cluster-${id}`;
  if (secret !== undefined)
    await hub.makeApiClient(CoreV1Api).createNamespacedSecret({
      namespace: systemNamespace,
      body: { metadata: { name: secretName }, stringData: secret },
    });
  await hub.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    ...connectionsApi,
    namespace: systemNamespace,
    body: {
      apiVersion: API_GROUP_VERSION,
      kind: CLUSTER_CONNECTION.kind,
      metadata: { name: id },
      spec: {
        displayName: id,
        ...(secret?.["kubeconfig"] === undefined ? {} : { authMethod: "kubeconfig" }),
        ...(secret === undefined ? {} : { credentialRef: { name: secretName, key: Object.keys(secret)[0] } }),
        ...spec,
      },
    },
  });
}

/** The registry's connection to `id` once its health is `state` (and `message` matches). */
export async function settledIn(
  registry: ClusterRegistry,
  id: string,
  state: ClusterHealth["state"],
  message?: RegExp,
): Promise<ConnectedCluster> {
  const { cluster } = await waitFor(
    () => {
      const current = registry.get(id);
      return { cluster: current, health: current?.health() };
    },
    ({ health }) => health?.state === state && (message?.test(health.message ?? "") ?? true),
    {
      what: `cluster ${id} ${state}${message === undefined ? "" : ` (${message.source})`}`,
      timeoutMs: 30_000,
      intervalMs: 200,
      describe: ({ health }) => JSON.stringify(health),
    },
  );
  return cluster as ConnectedCluster;
}

export function healthOf(cluster: ConnectedCluster, state: ClusterHealth["state"]): Promise<ClusterHealth> {
  return eventually(
    () => Promise.resolve(cluster.health()),
    (health) => health.state === state,
    `cluster ${cluster.id} ${state}`,
    30_000,
  );
}

/** The body of a create: the API server adds the namespace and the rest of the metadata. */
export function flagResource(name: string) {
  return { apiVersion: API_GROUP_VERSION, kind: FEATURE_FLAG.kind, metadata: { name }, spec: validFlagSpec };
}

export async function createFlag(
  kc: KubeConfig,
  namespace: string,
  name: string,
): Promise<FeatureFlagResource> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  return (await custom.createNamespacedCustomObject({
    ...flagsApi,
    namespace,
    body: flagResource(name),
  })) as FeatureFlagResource;
}

export async function createNamespace(kc: KubeConfig, name: string): Promise<string> {
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
  return name;
}

/** The body of a Deployment, StatefulSet or DaemonSet `name` with one container. */
export function workload(name: string) {
  const labels = { app: name };
  const template = { metadata: { labels }, spec: { containers: [{ name: "app", image: "nginx" }] } };
  return { metadata: { name, labels }, spec: { selector: { matchLabels: labels }, template } };
}

/** How many watches of `resource` the API server of `kc` is serving (its own metrics). */
export async function apiServerWatches(kc: KubeConfig, resource: string): Promise<number> {
  const cluster = kc.getCurrentCluster();
  const ca = Buffer.from(cluster?.caData ?? "", "base64");
  const token = kc.getCurrentUser()?.token ?? "";
  const text = await new Promise<string>((resolve, reject) => {
    request(
      `${cluster?.server ?? ""}/metrics`,
      { ca, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        res.setEncoding("utf8");
        let body = "";
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => {
          resolve(body);
        });
      },
    )
      .on("error", reject)
      .end();
  });
  // One line per scope (namespace, cluster) and component: add them up.
  return text
    .split("\n")
    .filter(
      (l) =>
        l.startsWith("apiserver_longrunning_requests{") &&
        l.includes(`resource="${resource}"`) &&
        l.includes('verb="WATCH"'),
    )
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
}
