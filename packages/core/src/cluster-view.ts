/**
 * A cluster as the REST API shows it, and the decisions about its state: which phase a probe
 * means (in one switch, as Argo CD's cluster info updater does), the status the operator
 * writes, and which namespaces users see. Never any credential.
 */
import Type from "typebox";
import type { ClusterConnectionResource } from "./cluster-registration.ts";
import {
  AUTH_METHODS,
  CLUSTER_PHASES,
  SYSTEM_NAMESPACE,
  type ClusterConnectionStatus,
  type ClusterPhase,
} from "./cluster-connection.ts";
import { metaTime, setCondition } from "./conditions.ts";
import { compareStrings } from "./workload.ts";

export const ClusterView = Type.Object(
  {
    id: Type.String(),
    displayName: Type.String(),
    apiServer: Type.String(),
    status: Type.Enum([...CLUSTER_PHASES], { description: "Connected, Disconnected or Error." }),
    kubernetesVersion: Type.String({ description: "Empty until the operator first reached the cluster." }),
    discoveredWorkloads: Type.Integer({ minimum: 0 }),
    local: Type.Boolean({ description: "The hub cluster svc runs in; it cannot be removed." }),
    labels: Type.Record(Type.String(), Type.String()),
    namespaces: Type.Array(Type.String(), { description: "Namespaces managed; empty: all but system ones." }),
    authMethod: Type.Enum([...AUTH_METHODS]),
    lastSyncTime: Type.Union([Type.String({ format: "date-time" }), Type.Null()], {
      description: "Last time the operator reached the cluster.",
    }),
    message: Type.String({ description: "Why the cluster is not Connected; empty when it is." }),
  },
  { additionalProperties: false },
);
export type ClusterView = Type.Static<typeof ClusterView>;

export function clusterView(connection: ClusterConnectionResource, localClusterId: string): ClusterView {
  const { metadata, spec } = connection;
  const status = connection.status ?? {};
  return {
    id: metadata.name,
    displayName: spec.displayName,
    apiServer: spec.apiServer,
    // DESIGN.md §4: a new cluster is Disconnected until the operator first reaches it.
    status: status.phase ?? "Disconnected",
    kubernetesVersion: status.kubernetesVersion ?? "",
    discoveredWorkloads: status.discoveredWorkloads ?? 0,
    local: metadata.name === localClusterId,
    labels: { ...(spec.labels ?? {}) },
    namespaces: [...(spec.namespaces ?? [])],
    authMethod: spec.authMethod ?? "serviceaccount",
    lastSyncTime: status.lastSyncTime ?? null,
    message: status.message ?? (status.phase === undefined ? "not reached by the operator yet" : ""),
  };
}

/** What one attempt to reach a cluster found. */
export type ClusterProbe =
  | { result: "connected"; kubernetesVersion: string; discoveredWorkloads: number }
  /** No answer: connection refused or reset, timeout, unknown host. */
  | { result: "unreachable"; message: string }
  /** The API server answered 401 or 403: the credentials are refused. */
  | { result: "unauthorized"; message: string }
  /** The server's certificate is not trusted, or the client's is refused. */
  | { result: "tls"; message: string }
  /** svc cannot even try: the credentials Secret is missing or holds no usable credentials. */
  | { result: "misconfigured"; message: string };

/** Disconnected when the cluster may come back by itself; Error when a person must act. */
export function clusterPhase(probe: ClusterProbe): ClusterPhase {
  switch (probe.result) {
    case "connected":
      return "Connected";
    case "unreachable":
      return "Disconnected";
    case "unauthorized":
    case "tls":
    case "misconfigured":
      return "Error";
  }
}

const READY_REASONS: Record<ClusterProbe["result"], string> = {
  connected: "Connected",
  unreachable: "Unreachable",
  unauthorized: "Unauthorized",
  tls: "TLSError",
  misconfigured: "CredentialsUnusable",
};

/**
 * The status the operator writes after a probe. A failed probe keeps the last known version,
 * workload count and sync time (the time the cluster was last reached); the Ready condition
 * keeps its transition time while its status does not change.
 */
export function clusterStatus(
  probe: ClusterProbe,
  previous: ClusterConnectionStatus | undefined,
  now: Date,
  generation?: number,
): ClusterConnectionStatus {
  const phase = clusterPhase(probe);
  const message = probe.result === "connected" ? "" : probe.message;
  const conditions = setCondition(
    previous?.conditions,
    {
      type: "Ready",
      status: phase === "Connected" ? "True" : "False",
      ...(generation === undefined ? {} : { observedGeneration: generation }),
      reason: READY_REASONS[probe.result],
      message: message === "" ? "the cluster answers and its workloads are watched" : message,
    },
    now,
  );
  const known =
    probe.result === "connected"
      ? {
          kubernetesVersion: probe.kubernetesVersion,
          discoveredWorkloads: probe.discoveredWorkloads,
          lastSyncTime: metaTime(now),
        }
      : {
          ...(previous?.kubernetesVersion === undefined
            ? {}
            : { kubernetesVersion: previous.kubernetesVersion }),
          ...(previous?.discoveredWorkloads === undefined
            ? {}
            : { discoveredWorkloads: previous.discoveredWorkloads }),
          ...(previous?.lastSyncTime === undefined ? {} : { lastSyncTime: previous.lastSyncTime }),
        };
  return { phase, ...known, message, conditions };
}

/** Namespaces svc itself and Kubernetes use: never shown, never managed. */
export const SYSTEM_NAMESPACES = ["kube-system", "kube-public", "kube-node-lease", SYSTEM_NAMESPACE] as const;

/** The namespaces users see: sorted, without system ones, within the connection's list when it has one. */
export function visibleNamespaces(
  names: readonly string[],
  connectionNamespaces: readonly string[] | undefined,
): string[] {
  const hidden = new Set<string>(SYSTEM_NAMESPACES);
  const allowed =
    connectionNamespaces !== undefined && connectionNamespaces.length > 0
      ? new Set(connectionNamespaces)
      : undefined;
  return [...new Set(names)]
    .filter((name) => !hidden.has(name) && (allowed === undefined || allowed.has(name)))
    .sort(compareStrings);
}

const DURATION_UNITS_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * A Go duration (as resyncPeriod holds it, already validated by the schema) in milliseconds.
 * Undefined for text that is not one.
 */
export function goDurationMs(duration: string): number | undefined {
  const parts = [...duration.matchAll(/([0-9]+(?:\.[0-9]+)?)(ns|us|µs|ms|s|m|h)/gu)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== duration) return undefined;
  return parts.reduce(
    (total, [, amount, unit]) => total + Number(amount) * (DURATION_UNITS_MS[unit ?? ""] ?? 0),
    0,
  );
}
