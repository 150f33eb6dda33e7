import { PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { API_GROUP, API_VERSION, FEATURE_FLAG, type FeatureFlagResource } from "@svc/core";
import type { ConnectedCluster } from "@svc/kube";
import { ApiException } from "@kubernetes/client-node";
import { callCluster, clusterCallError } from "../clusters/reach.ts";
import { HttpError } from "../http/errors.ts";

/**
 * The Kubernetes writes behind the flag routes. Each one puts the object the API server
 * returned into the cluster's cache (write-through), so the writer's next read sees its write.
 */

/** A write that lost a race with another writer is tried again this often (no precondition given). */
const CONFLICT_RETRIES = 3;

function target(namespace: string) {
  return { group: API_GROUP, version: API_VERSION, namespace, plural: FEATURE_FLAG.plural };
}

function flagLabel(namespace: string, name: string): string {
  return `flag ${namespace}/${name}`;
}

/** A delete's answer: the object itself while finalizers hold it, else a Status. */
function isFlagResource(answer: unknown): answer is FeatureFlagResource {
  const object = answer as Partial<FeatureFlagResource> | undefined;
  return object?.kind === FEATURE_FLAG.kind && typeof object.metadata?.uid === "string";
}

function isConflict(error: unknown): boolean {
  return error instanceof HttpError && error.statusCode === 409;
}

export async function createFlag(
  cluster: ConnectedCluster,
  resource: FeatureFlagResource,
): Promise<FeatureFlagResource> {
  const { namespace, name } = resource.metadata;
  try {
    const created = (await cluster.customObjects.createNamespacedCustomObject({
      ...target(namespace),
      body: resource,
    })) as FeatureFlagResource;
    cluster.flags.upsert(created);
    return created;
  } catch (error) {
    if (error instanceof ApiException && error.code === 409) {
      throw new HttpError(409, `${flagLabel(namespace, name)} already exists in cluster ${cluster.id}`);
    }
    throw clusterCallError(cluster, error, flagLabel(namespace, name));
  }
}

async function readFresh(cluster: ConnectedCluster, namespace: string, name: string) {
  return callCluster(cluster, flagLabel(namespace, name), async () => {
    const fresh = (await cluster.customObjects.getNamespacedCustomObject({
      ...target(namespace),
      name,
    })) as FeatureFlagResource;
    cluster.flags.upsert(fresh);
    return fresh;
  });
}

/**
 * Replaces a flag's spec. With `expectedVersion` (the client's resourceVersion) a concurrent
 * change makes it 409 (no lost update); without it, it is applied on top of the newest version.
 */
export async function replaceFlag(
  cluster: ConnectedCluster,
  current: FeatureFlagResource,
  nextSpec: (current: FeatureFlagResource) => FeatureFlagResource["spec"],
  expectedVersion: string | undefined,
): Promise<FeatureFlagResource> {
  const { namespace, name } = current.metadata;
  let base = current;
  for (let attempt = 0; ; attempt++) {
    const body: FeatureFlagResource = {
      ...base,
      metadata: { ...base.metadata, resourceVersion: expectedVersion ?? base.metadata.resourceVersion },
      spec: nextSpec(base),
    };
    try {
      const replaced = await callCluster(
        cluster,
        flagLabel(namespace, name),
        async () =>
          (await cluster.customObjects.replaceNamespacedCustomObject({
            ...target(namespace),
            name,
            body,
          })) as FeatureFlagResource,
      );
      cluster.flags.upsert(replaced);
      return replaced;
    } catch (error) {
      if (!isConflict(error)) throw error;
      if (expectedVersion !== undefined) {
        throw new HttpError(
          409,
          `${flagLabel(namespace, name)} was changed after resourceVersion ${expectedVersion}: read it again and retry`,
        );
      }
      if (attempt >= CONFLICT_RETRIES) throw error;
      base = await readFresh(cluster, namespace, name);
    }
  }
}

/** Sets spec.enabled with a merge patch: idempotent, and it touches no other field. */
export async function setFlagEnabled(
  cluster: ConnectedCluster,
  namespace: string,
  name: string,
  enabled: boolean,
): Promise<FeatureFlagResource> {
  return callCluster(cluster, flagLabel(namespace, name), async () => {
    const patched = (await cluster.customObjects.patchNamespacedCustomObject(
      { ...target(namespace), name, body: { spec: { enabled } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    )) as FeatureFlagResource;
    cluster.flags.upsert(patched);
    return patched;
  });
}

export async function deleteFlag(cluster: ConnectedCluster, namespace: string, name: string): Promise<void> {
  const answer: unknown = await callCluster(cluster, flagLabel(namespace, name), () =>
    cluster.customObjects.deleteNamespacedCustomObject({ ...target(namespace), name }),
  );
  // The flag lingers while the operator's finalizer withdraws its delivery: the answer is that
  // object, whose uid keeps every later event of it (status writes included) out of the cache.
  cluster.flags.remove(namespace, name, isFlagResource(answer) ? answer : undefined);
}
