import {
  API_GROUP_VERSION,
  decideFlagWrite,
  FEATURE_FLAG,
  WRITTEN_BY_ANNOTATION,
  writtenBy,
  type FeatureFlagResource,
} from "@svc/core";
import type { ApplyConfiguration, ConnectedCluster } from "@svc/kube";
import { callCluster } from "../clusters/reach.ts";
import { HttpError } from "../http/errors.ts";

/**
 * The Kubernetes writes behind the flag routes, through the cluster's ObjectWriter: never
 * forced (a replace carries its resourceVersion, a create fails on a name taken). Each one puts
 * the object the API server returned into the cluster's cache (write-through), so the writer's
 * next read sees its write.
 */

/**
 * A write that lost a race is tried again this often: with no precondition given, or when only
 * the operator's status writes came between (it may write several during one delivery).
 */
const CONFLICT_RETRIES = 5;

function flagRef(namespace: string, name: string) {
  return { apiVersion: API_GROUP_VERSION, kind: FEATURE_FLAG.kind, metadata: { namespace, name } };
}

function flagLabel(namespace: string, name: string): string {
  return `flag ${namespace}/${name}`;
}

/** The flag as an object to write: its kind named, as the cluster's writer addresses it. */
function flagObject(flag: FeatureFlagResource): ApplyConfiguration {
  return { ...flag, apiVersion: API_GROUP_VERSION, kind: FEATURE_FLAG.kind, metadata: { ...flag.metadata } };
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
  const created = await callCluster(cluster, flagLabel(namespace, name), () =>
    cluster.writer.create<FeatureFlagResource>(flagObject(signed(resource, actor))),
  );
  if (created === undefined)
    throw new HttpError(409, `${flagLabel(namespace, name)} already exists in cluster ${cluster.id}`);
  cluster.flags.upsert(created);
  return created;
}

async function readFresh(cluster: ConnectedCluster, namespace: string, name: string) {
  const what = flagLabel(namespace, name);
  const fresh = await callCluster(cluster, what, () =>
    cluster.writer.read<FeatureFlagResource>(flagRef(namespace, name)),
  );
  if (fresh === undefined) throw new HttpError(404, `${what} not found in cluster ${cluster.id}`);
  cluster.flags.upsert(fresh);
  return fresh;
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
      const replaced = await callCluster(cluster, flagLabel(namespace, name), () =>
        cluster.writer.replace<FeatureFlagResource>(flagObject(body)),
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
  const patched = await callCluster(cluster, flagLabel(namespace, name), () =>
    cluster.writer.mergePatch<FeatureFlagResource>(flagRef(namespace, name), {
      ...signature,
      spec: { enabled },
    }),
  );
  cluster.flags.upsert(patched);
  return patched;
}

export async function deleteFlag(cluster: ConnectedCluster, namespace: string, name: string): Promise<void> {
  const what = flagLabel(namespace, name);
  const answer = await callCluster(cluster, what, () =>
    cluster.writer.removeAnswering(flagRef(namespace, name)),
  );
  if (answer === undefined) throw new HttpError(404, `${what} not found in cluster ${cluster.id}`);
  // The flag lingers while the operator's finalizer withdraws its delivery: the answer is that
  // object, whose uid keeps every later event of it (status writes included) out of the cache.
  cluster.flags.remove(namespace, name, isFlagResource(answer) ? answer : undefined);
}
