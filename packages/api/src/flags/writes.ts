import { PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import {
  API_GROUP,
  API_VERSION,
  decideFlagWrite,
  FEATURE_FLAG,
  WRITTEN_BY_ANNOTATION,
  writtenBy,
  type FeatureFlagResource,
} from "@svc/core";
import type { ConnectedCluster } from "@svc/kube";
import { ApiException } from "@kubernetes/client-node";
import { callCluster, clusterCallError } from "../clusters/reach.ts";
import { HttpError } from "../http/errors.ts";

/**
 * The Kubernetes writes behind the flag routes. Each one puts the object the API server
 * returned into the cluster's cache (write-through), so the writer's next read sees its write.
 */

/**
 * A write that lost a race is tried again this often: with no precondition given, or when only
 * the operator's status writes came between (it may write several during one delivery).
 */
const CONFLICT_RETRIES = 5;

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
  actor?: string,
): Promise<FeatureFlagResource> {
  const { namespace, name } = resource.metadata;
  try {
    const created = (await cluster.customObjects.createNamespacedCustomObject({
      ...target(namespace),
      body: signed(resource, actor),
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
 * Replaces a flag's spec. With `expectedVersion` (the client's resourceVersion) a change of the
 * spec by someone else since that version makes it 409 naming what changed (no lost update),
 * while a change of only the status or the operator's metadata does not: the write goes ahead
 * on the newest version (core's decideFlagWrite). Without it, it is applied on top of the
 * newest version. `actor`, svc's user, is remembered as the writer of the new generation.
 */
export async function replaceFlag(
  cluster: ConnectedCluster,
  current: FeatureFlagResource,
  nextSpec: (current: FeatureFlagResource) => FeatureFlagResource["spec"],
  expectedVersion: string | undefined,
  actor?: string,
): Promise<FeatureFlagResource> {
  const { namespace, name } = current.metadata;
  let base = current;
  for (let attempt = 0; ; attempt++) {
    const body = signed(
      {
        ...base,
        metadata: { ...base.metadata, resourceVersion: precondition(cluster, base, expectedVersion) },
        spec: nextSpec(base),
      },
      actor,
    );
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
      if (attempt >= CONFLICT_RETRIES) {
        if (expectedVersion === undefined) throw error;
        throw new HttpError(409, `${flagLabel(namespace, name)} kept changing while it was written: retry`);
      }
      base = await readFresh(cluster, namespace, name);
    }
  }
}

/**
 * The resourceVersion to write `base` at: the client's when it is the newest, else the newest
 * when only status or metadata changed since the client's; a real conflict is refused here.
 */
function precondition(
  cluster: ConnectedCluster,
  base: FeatureFlagResource,
  expectedVersion: string | undefined,
): string | undefined {
  if (expectedVersion === undefined) return base.metadata.resourceVersion;
  const { namespace, name } = base.metadata;
  const decision = decideFlagWrite(expectedVersion, cluster.flagVersions.of(namespace, name), base);
  if (decision.kind === "conflict") throw new HttpError(409, decision.message);
  return decision.resourceVersion;
}

/** The flag as svc's API writes it: signed with its user and the spec written (WRITTEN_BY_ANNOTATION). */
function signed(flag: FeatureFlagResource, actor: string | undefined): FeatureFlagResource {
  if (actor === undefined) return flag;
  const annotations = { ...flag.metadata.annotations, [WRITTEN_BY_ANNOTATION]: writtenBy(actor, flag.spec) };
  return { ...flag, metadata: { ...flag.metadata, annotations } };
}

/** Sets spec.enabled with a merge patch: idempotent, and it touches no other field. */
export async function setFlagEnabled(
  cluster: ConnectedCluster,
  namespace: string,
  name: string,
  enabled: boolean,
  actor?: string,
): Promise<FeatureFlagResource> {
  // Signed for the spec the cache holds with this state: a concurrent change makes the digest
  // not match, and the writer is then read from the field managers, as for any other change.
  const cached = cluster.flags.get(namespace, name);
  const signature =
    actor === undefined || cached === undefined
      ? {}
      : {
          metadata: {
            annotations: { [WRITTEN_BY_ANNOTATION]: writtenBy(actor, { ...cached.spec, enabled }) },
          },
        };
  return callCluster(cluster, flagLabel(namespace, name), async () => {
    const patched = (await cluster.customObjects.patchNamespacedCustomObject(
      { ...target(namespace), name, body: { ...signature, spec: { enabled } } },
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
