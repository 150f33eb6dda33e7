import { KubeApiError, type ClusterRegistry, type ConnectedCluster } from "@svc/kube";
import type { ApiContext } from "../context.ts";
import { HttpError } from "../http/errors.ts";

/**
 * How long a request waits for a cluster whose caches are still filling before it answers 502.
 * Short: a user waits on it, and an unreachable cluster must never hold a request for long.
 */
export const SYNC_WAIT_MS = 3000;

/** The cluster registry; 503 when this server runs without a Kubernetes connection. */
export function registry(ctx: ApiContext): ClusterRegistry {
  if (ctx.clusters === undefined) {
    throw new HttpError(
      503,
      "this API server runs without a Kubernetes connection: flags and clusters are unavailable",
    );
  }
  return ctx.clusters;
}

/** The registered cluster `id`, or the error a client gets for an unknown one (404, or 400 in a body). */
export function knownCluster(ctx: ApiContext, id: string, unknownStatus: 400 | 404): ConnectedCluster {
  const cluster = registry(ctx).get(id);
  if (cluster === undefined) {
    const field = unknownStatus === 400 ? "clusterId: " : "";
    throw new HttpError(unknownStatus, `${field}no cluster ${id} is registered`);
  }
  return cluster;
}

/**
 * A known cluster whose caches can answer: 502 at once when it is known to be down, or after
 * SYNC_WAIT_MS when its first read has not finished (DESIGN.md §4: never a hang). The registry's
 * whenSynced decides both; a ready cluster is answered without it.
 */
export async function readyCluster(
  ctx: ApiContext,
  id: string,
  unknownStatus: 400 | 404 = 404,
): Promise<ConnectedCluster> {
  const cluster = knownCluster(ctx, id, unknownStatus);
  if (cluster.health().state === "ready") return cluster;
  try {
    await cluster.whenSynced(SYNC_WAIT_MS);
  } catch (error) {
    throw new HttpError(502, error instanceof Error ? error.message : `cluster ${id} is unavailable`);
  }
  return cluster;
}

/**
 * A failed call to a cluster as the error the client gets. `what` names the object for 404s.
 * Refusals of our own credentials and server faults are the cluster's problem, not the
 * client's: 502, so that a dashboard shows "the cluster", not "your request".
 */
export function clusterCallError(cluster: ConnectedCluster, error: unknown, what: string): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof KubeApiError) return refusalError(cluster, error.status, error.statusMessage, what);
  const message = error instanceof Error ? error.message : String(error);
  return new HttpError(502, `cluster ${cluster.id} did not answer: ${message}`);
}

/** An API server's refusal (its HTTP status and message) as the client's error. */
function refusalError(cluster: ConnectedCluster, status: number, message: string, what: string): HttpError {
  switch (status) {
    case 404:
      return new HttpError(404, `${what} not found in cluster ${cluster.id}`);
    case 409:
      return new HttpError(409, message);
    case 400:
    case 422:
      return new HttpError(400, message);
    case 401:
    case 403:
      return new HttpError(502, `cluster ${cluster.id} refused svc's credentials: ${message}`);
    default:
      return new HttpError(502, `cluster ${cluster.id} failed: ${message}`);
  }
}

/** Runs one call to a cluster, turning its failure into the client's error. */
export async function callCluster<T>(
  cluster: ConnectedCluster,
  what: string,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw clusterCallError(cluster, error, what);
  }
}
