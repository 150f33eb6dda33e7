// A connected cluster's health, decided in one place from what its informers and its
// /version probe last saw (Argo CD decides a cluster's connection state the same way, in one
// function over the latest observations). Pure: the shell records outcomes and asks.

export type ClusterState = "syncing" | "ready" | "unreachable" | "error";

export interface ClusterHealth {
  state: ClusterState;
  /** Why the cluster is unreachable or in error; never holds a credential. */
  message?: string;
  /** gitVersion of the last successful /version probe. */
  kubernetesVersion?: string;
  /** When every cache was last known to be in step with the cluster (ISO 8601). */
  lastSyncTime?: string;
}

/**
 * What went wrong with one call: `unreachable` (network, timeout, API server unavailable: it
 * may come back by itself), `error` (credentials, TLS, permissions, a missing resource: someone
 * must act), or `gone` (410: a resourceVersion or continue token expired, so list again).
 */
export interface Failure {
  kind: "unreachable" | "error" | "gone";
  message: string;
}

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

const TLS_CODE =
  /^(CERT_|ERR_TLS_|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_)/;

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  status?: unknown;
  cause?: unknown;
}

/** Classifies an error thrown by a call to a cluster (fetch's, or KubeApiError for an answer). */
export function describeFailure(error: unknown, what: string): Failure {
  const chain: ErrorLike[] = [];
  for (
    let e: unknown = error;
    typeof e === "object" && e !== null && chain.length < 5;
    e = (e as ErrorLike).cause
  )
    chain.push(e);
  const status = httpStatus(chain[0]);
  if (status !== undefined) return describeStatus(status, serverMessage(chain[0]), what);
  for (const e of chain) {
    const code = typeof e.code === "string" ? e.code : "";
    const message = typeof e.message === "string" ? e.message : "";
    if (TLS_CODE.test(code))
      return { kind: "error", message: `TLS error talking to the API server: ${message}` };
    if (NETWORK_CODES.has(code))
      return { kind: "unreachable", message: `cannot reach the API server: ${message}` };
    if (e.name === "TimeoutError")
      return { kind: "unreachable", message: `the API server did not answer ${what} in time` };
  }
  const first = chain[0];
  const message = typeof first?.message === "string" ? first.message : String(error);
  return { kind: "unreachable", message: `${what} failed: ${message}` };
}

function describeStatus(status: number, message: string, what: string): Failure {
  if (status === 410) return { kind: "gone", message };
  if (status === 401)
    return { kind: "error", message: "the API server rejected the credentials (401 Unauthorized)" };
  if (status === 403) return { kind: "error", message: `the credentials may not ${what}: ${message}` };
  if (status === 404)
    return { kind: "error", message: `${what}: not found (is the resource's CRD installed?)` };
  if (status === 429 || status >= 500)
    return { kind: "unreachable", message: `the API server is unavailable (${status}): ${message}` };
  return { kind: "error", message: `${what}: ${status} ${message}` };
}

function httpStatus(error: ErrorLike | undefined): number | undefined {
  const status = error?.status;
  return typeof status === "number" && status >= 300 ? status : undefined;
}

function serverMessage(error: ErrorLike | undefined): string {
  return typeof error?.message === "string" ? error.message : "";
}

/** The latest outcome of one source of observations (an informer or the /version probe). */
export interface SourceOutcome {
  /** The informer has listed at least once (for the probe: answered at least once). */
  synced: boolean;
  /** Set when the latest attempt failed; cleared by the next success. */
  failure?: Failure | undefined;
}

export interface HealthInputs {
  /** The credentials could not be turned into a client (missing Secret, exec plugin, ...). */
  configError?: string | undefined;
  sources: readonly SourceOutcome[];
}

/**
 * - credentials unusable, or any source failing with an `error` → error (someone must act;
 *   this wins over an outage because an outage cannot be told apart while it lasts);
 * - any source failing with `unreachable` → unreachable;
 * - every source synced → ready; otherwise syncing.
 */
export function decideHealth(inputs: HealthInputs): { state: ClusterState; message?: string } {
  if (inputs.configError !== undefined) return { state: "error", message: inputs.configError };
  const failures = inputs.sources.flatMap((s) => (s.failure === undefined ? [] : [s.failure]));
  const error = failures.find((f) => f.kind === "error");
  if (error) return { state: "error", message: error.message };
  const unreachable = failures.find((f) => f.kind === "unreachable");
  if (unreachable) return { state: "unreachable", message: unreachable.message };
  return inputs.sources.every((s) => s.synced) ? { state: "ready" } : { state: "syncing" };
}

/** A cluster's caches cannot answer: it is unreachable, in error, or not synced in time. */
export class ClusterUnavailableError extends Error {
  readonly clusterId: string;
  readonly health: ClusterHealth;
  constructor(clusterId: string, health: ClusterHealth, message?: string) {
    super(
      message ??
        `cluster ${clusterId} is ${health.state}${health.message === undefined ? "" : `: ${health.message}`}`,
    );
    this.name = "ClusterUnavailableError";
    this.clusterId = clusterId;
    this.health = health;
  }
}
