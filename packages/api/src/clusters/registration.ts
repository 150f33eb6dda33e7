import {
  API_GROUP_VERSION,
  CLUSTER_CONNECTION,
  clusterSecretName,
  credentialSecretProblem,
  type ClusterConnectionResource,
  type ClusterCredentialsSecret,
} from "@svc/core";
import { waitFor, type ConnectedCluster, type Logger } from "@svc/kube";
import type { ApiContext } from "../context.ts";
import { HttpError } from "../http/errors.ts";
import { callCluster, clusterCallError, registry } from "./reach.ts";

/**
 * Registration writes to the hub: the credentials Secret (when they came inline), then the
 * ClusterConnection, which the registry picks up and connects. A failure midway removes the
 * Secret again, so a refused registration leaves nothing behind. The Secret is then owned by
 * its ClusterConnection (an ownerReference), so Kubernetes' garbage collector removes it with
 * the connection however that is deleted. Each call returns once the registry has seen the
 * change, so the writer's next read agrees with it. A failed clean-up of the Secret is logged
 * with the cluster and Secret, never swallowed.
 */

/** How long a registration waits for the registry's watch of ClusterConnections to see it. */
const REGISTRY_WAIT_MS = 10_000;

function connectionRef(ctx: ApiContext, id: string) {
  return {
    apiVersion: API_GROUP_VERSION,
    kind: CLUSTER_CONNECTION.kind,
    metadata: { namespace: ctx.config.systemNamespace, name: id },
  };
}

function secretRef(namespace: string, name: string) {
  return { apiVersion: "v1", kind: "Secret", metadata: { namespace, name } };
}

interface SecretMetadata {
  metadata?: { labels?: Record<string, string> };
}

function hub(ctx: ApiContext): ConnectedCluster {
  const local = registry(ctx)
    .list()
    .find((cluster) => cluster.local);
  if (local === undefined) throw new Error("the cluster registry has no local cluster");
  return local;
}

function registered(ctx: ApiContext, id: string, present: boolean): Promise<ConnectedCluster | undefined> {
  return waitFor(
    () => registry(ctx).get(id),
    (cluster) => (cluster !== undefined) === present,
    {
      what: `cluster ${id} ${present ? "in" : "out of"} the registry`,
      timeoutMs: REGISTRY_WAIT_MS,
      intervalMs: 20,
    },
  );
}

async function createSecret(ctx: ApiContext, local: ConnectedCluster, secret: ClusterCredentialsSecret) {
  const { name, namespace, labels, data } = secret;
  const created = await callCluster(local, `Secret ${namespace}/${name}`, () =>
    local.writer.create({
      ...secretRef(namespace, name),
      metadata: { name, namespace, labels },
      type: "Opaque",
      data,
    }),
  );
  if (created === undefined)
    throw new HttpError(409, `Secret ${namespace}/${name} already exists: remove it or pass credentialRef`);
}

/** Makes the ClusterConnection the Secret's owner: deleting the connection garbage-collects it. */
async function ownSecret(
  local: ConnectedCluster,
  secret: ClusterCredentialsSecret,
  connection: { metadata?: { name?: string; uid?: string } },
): Promise<void> {
  const { name, uid } = connection.metadata ?? {};
  if (name === undefined || uid === undefined) throw new Error("the created ClusterConnection has no uid");
  const owner = { apiVersion: API_GROUP_VERSION, kind: CLUSTER_CONNECTION.kind, name, uid };
  await local.writer.mergePatch(secretRef(secret.namespace, secret.name), {
    metadata: { ownerReferences: [owner] },
  });
}

/**
 * 400 unless `credentialRef` names a Secret made for cluster `id` (credentialSecretProblem):
 * checked before anything is written or connected. Its default name needs no Secret yet (the
 * connection waits for it); another name must exist and carry the label for this cluster. The
 * registry applies the same rule to every connection it reads, however it was written.
 */
export async function checkCredentialRef(
  ctx: ApiContext,
  id: string,
  credentialRef: { name: string; key: string } | undefined,
): Promise<void> {
  if (credentialRef === undefined || credentialRef.name === clusterSecretName(id)) return;
  const local = hub(ctx);
  const namespace = ctx.config.systemNamespace;
  const secret = await callCluster(local, `Secret ${namespace}/${credentialRef.name}`, () =>
    local.writer.read<SecretMetadata>(secretRef(namespace, credentialRef.name)),
  );
  if (secret === undefined)
    throw new HttpError(400, `credentialRef.name: no Secret ${credentialRef.name} in ${namespace}`);
  const problem = credentialSecretProblem(id, credentialRef.name, secret.metadata?.labels);
  if (problem !== undefined) throw new HttpError(400, `credentialRef.name: ${problem}`);
}

export async function registerCluster(
  ctx: ApiContext,
  registration: { connection: ClusterConnectionResource; secret?: ClusterCredentialsSecret | undefined },
  log: Logger,
): Promise<ConnectedCluster> {
  const local = hub(ctx);
  const { connection, secret } = registration;
  const id = connection.metadata.name;
  if (secret !== undefined) await createSecret(ctx, local, secret);
  let created: { metadata?: { name?: string; uid?: string } };
  try {
    const answer = await local.writer.create<typeof created>({
      ...connection,
      ...connectionRef(ctx, id),
      metadata: { ...connection.metadata },
    });
    if (answer === undefined) throw new HttpError(409, `cluster ${id} is already registered`);
    created = answer;
  } catch (error) {
    if (secret !== undefined) {
      await local.writer.remove(secretRef(secret.namespace, secret.name)).catch((cleanup: unknown) => {
        log.warn(
          { cluster: id, secret: `${secret.namespace}/${secret.name}`, err: cleanup },
          "the credential Secret of a refused registration was not deleted",
        );
      });
    }
    throw clusterCallError(local, error, `ClusterConnection ${id}`);
  }
  // Without the owner the cluster still works; only the garbage collector's clean-up is lost.
  if (secret !== undefined)
    await ownSecret(local, secret, created).catch((error: unknown) => {
      log.warn(
        { cluster: id, secret: `${secret.namespace}/${secret.name}`, err: error },
        "the credential Secret was not given its ClusterConnection as owner",
      );
    });
  const cluster = await registered(ctx, id, true);
  if (cluster === undefined) throw new Error(`cluster ${id} missing from the registry`);
  return cluster;
}

/** Deletes the ClusterConnection and the Secret svc made for it; a Secret the user made stays. */
export async function unregisterCluster(
  ctx: ApiContext,
  cluster: ConnectedCluster,
  log: Logger,
): Promise<void> {
  const local = hub(ctx);
  // Read before the delete: the registry forgets the connection as soon as it sees it go.
  const secretName = cluster.connection?.spec.credentialRef?.name;
  const deleted = await callCluster(local, `cluster ${cluster.id}`, () =>
    local.writer.remove(connectionRef(ctx, cluster.id)),
  );
  if (!deleted) throw new HttpError(404, `cluster ${cluster.id} not found in cluster ${local.id}`);
  if (secretName !== undefined) {
    const namespace = ctx.config.systemNamespace;
    // Gone already (undefined: the garbage collector follows the ClusterConnection's delete):
    // nothing to do.
    const secret = await local.writer
      .read<SecretMetadata>(secretRef(namespace, secretName))
      .catch((error: unknown) => {
        log.warn(
          { cluster: cluster.id, secret: `${namespace}/${secretName}`, err: error },
          "the credential Secret could not be read, so it was not deleted",
        );
        return undefined;
      });
    if (secret?.metadata?.labels?.["svc.io/cluster"] === cluster.id) {
      await callCluster(local, `Secret ${namespace}/${secretName}`, () =>
        local.writer.remove(secretRef(namespace, secretName)),
      );
    }
  }
  await registered(ctx, cluster.id, false);
}
