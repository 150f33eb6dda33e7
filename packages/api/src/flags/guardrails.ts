// The delivery guardrails as the API applies them before writing a flag (docs/delivery.md):
// what the operator would refuse is refused here first, with the field named. Names a runtime
// reads at start are refused by validateFlagSpec itself; this adds what depends on the
// installation (its namespaces, its env var patterns) and on the cluster (whose a ConfigMap is).
import {
  foreignConfigMapMessage,
  foreignConfigMapOwner,
  namespaceNeverDelivered,
  policyRefusal,
  type DeliveryPolicy,
  type ConfigMapOwnership,
  type DeliveryScope,
  type FeatureFlagResource,
} from "@svc/core";
import { KubeApiError, type ConnectedCluster } from "@svc/kube";
import { callCluster, clusterCallError } from "../clusters/reach.ts";
import type { ApiContext } from "../context.ts";
import { HttpError } from "../http/errors.ts";

/** The installation's policy; svc's own namespace is the one the API runs in. */
export function deliveryPolicy(ctx: ApiContext): DeliveryPolicy {
  return { ...ctx.config.delivery, serviceNamespace: ctx.config.systemNamespace };
}

/** The scope the operator plans the namespace with: the policy and the namespace's labels. */
export function deliveryScope(ctx: ApiContext, cluster: ConnectedCluster, namespace: string): DeliveryScope {
  const labels = cluster.namespaces.get("", namespace)?.metadata?.labels;
  return { policy: deliveryPolicy(ctx), namespaceLabels: labels ?? {} };
}

/**
 * 400 unless `namespace` exists in the cluster (and is one the cluster's connection scans). The
 * cache answers first; a namespace it lacks is read from the cluster before the refusal, since
 * one created a moment ago may not have reached the cache yet (`kubectl create namespace`, then
 * a flag in it). A read the credentials may not make counts as absent, as the cache has it.
 */
export async function requireNamespace(cluster: ConnectedCluster, namespace: string): Promise<void> {
  if (cluster.namespaces.get("", namespace) !== undefined) return;
  const absent = new HttpError(400, `namespace: ${namespace} does not exist in cluster ${cluster.id}`);
  if (cluster.scannedNamespaces !== undefined && !cluster.scannedNamespaces.includes(namespace)) throw absent;
  let found: unknown;
  try {
    found = await cluster.writer.read({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  } catch (error) {
    if (error instanceof KubeApiError && error.status === 403) throw absent;
    throw clusterCallError(cluster, error, `namespace ${namespace}`);
  }
  if (found === undefined) throw absent;
}

/** Who owns the ConfigMap a configMap flag names, when it exists and svc did not create it. */
async function foreignOwner(cluster: ConnectedCluster, namespace: string, name: string) {
  // Only the metadata (PartialObjectMetadata): the API never reads what a ConfigMap holds.
  const current = await callCluster(cluster, `ConfigMap ${namespace}/${name}`, () =>
    cluster.writer.read<ConfigMapOwnership>(
      { apiVersion: "v1", kind: "ConfigMap", metadata: { namespace, name } },
      { metadataOnly: true },
    ),
  );
  return foreignConfigMapOwner(current);
}

/**
 * Refuses flags the operator would not deliver: 400 for a namespace never delivered to or a
 * variable outside the installation's patterns, 409 for a ConfigMap of someone else's. One GET
 * of metadata per ConfigMap named, nothing for other flags.
 */
export async function refuseUndeliverable(
  ctx: ApiContext,
  cluster: ConnectedCluster,
  candidates: readonly FeatureFlagResource[],
): Promise<void> {
  const policy = deliveryPolicy(ctx);
  for (const candidate of candidates) {
    const never = namespaceNeverDelivered(candidate.metadata.namespace, policy);
    if (never !== undefined) throw new HttpError(400, `namespace: ${never}`);
    const refused = policyRefusal(candidate, { policy });
    if (refused !== undefined) throw new HttpError(400, `delivery.envVar.name: ${refused}`);
  }
  const configMaps = new Set(
    candidates.flatMap((c) => {
      const name = c.spec.delivery.configMap?.configMapName;
      return name === undefined ? [] : [`${c.metadata.namespace}/${name}`];
    }),
  );
  for (const id of configMaps) {
    const [namespace = "", name = ""] = id.split("/");
    const owner = await foreignOwner(cluster, namespace, name);
    if (owner !== undefined)
      throw new HttpError(409, `delivery.configMap.configMapName: ${foreignConfigMapMessage(name, owner)}`);
  }
}
