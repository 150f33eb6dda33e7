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
  DEFAULT_RESYNC_PERIOD,
  SYSTEM_NAMESPACE,
  type ClusterConnectionStatus,
  type ClusterPhase,
} from "./cluster-connection.ts";
import { setCondition } from "../kubernetes/conditions.ts";
import { compareStrings } from "../kubernetes/workload.ts";

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

/**
 * What the cluster registry (packages/kube) last saw of a cluster: structurally its
 * ClusterHealth, so the operator passes the registry's report as it is.
 */
export interface ClusterHealthReport {
  /** syncing: connected, caches filling; ready; unreachable: may come back by itself; error: someone must act. */
  state: "syncing" | "ready" | "unreachable" | "error";
  /** Why it is unreachable or in error; never a credential. */
  message?: string | undefined;
  kubernetesVersion?: string | undefined;
  /** When every cache was last known to be in step with the cluster. */
  lastSyncTime?: string | undefined;
}

/**
 * SPEC.md's phases in one switch: Connected while the cluster answers and its workloads are
 * being discovered (first sync included), Disconnected when it may come back by itself (no
 * answer, 5xx), Error when a person must act (credentials, TLS, permissions).
 */
export function clusterPhase(health: Pick<ClusterHealthReport, "state">): ClusterPhase {
  switch (health.state) {
    case "syncing":
    case "ready":
      return "Connected";
    case "unreachable":
      return "Disconnected";
    case "error":
      return "Error";
  }
}

const READY_REASONS: Record<ClusterHealthReport["state"], string> = {
  syncing: "Syncing",
  ready: "Ready",
  unreachable: "Unreachable",
  error: "Error",
};

const READY_MESSAGES: Record<"syncing" | "ready", string> = {
  syncing: "connected; reading the cluster's workloads for the first time",
  ready: "the cluster answers and its workloads are watched",
};

/**
 * The status the operator writes for a cluster. What the registry no longer knows (version,
 * sync time) and the workload count of a cluster that stopped answering stay as last known;
 * the Ready condition keeps its transition time while its status holds.
 */
export function clusterStatus(
  input: {
    health: ClusterHealthReport;
    /** Workloads seen in the cluster's caches; undefined when they cannot be counted now. */
    discoveredWorkloads?: number | undefined;
    previous?: ClusterConnectionStatus | undefined;
    generation?: number | undefined;
  },
  now: Date,
): ClusterConnectionStatus {
  const { health, previous, generation } = input;
  const phase = clusterPhase(health);
  const message = phase === "Connected" ? "" : (health.message ?? `the cluster is ${health.state}`);
  const conditions = setCondition(
    previous?.conditions,
    {
      type: "Ready",
      status: health.state === "ready" ? "True" : "False",
      ...(generation === undefined ? {} : { observedGeneration: generation }),
      reason: READY_REASONS[health.state],
      message:
        health.state === "ready" || health.state === "syncing" ? READY_MESSAGES[health.state] : message,
    },
    now,
  );
  const kubernetesVersion = health.kubernetesVersion ?? previous?.kubernetesVersion;
  const discoveredWorkloads = input.discoveredWorkloads ?? previous?.discoveredWorkloads;
  const lastSyncTime = health.lastSyncTime ?? previous?.lastSyncTime;
  return {
    phase,
    ...(kubernetesVersion === undefined ? {} : { kubernetesVersion }),
    ...(discoveredWorkloads === undefined ? {} : { discoveredWorkloads }),
    ...(lastSyncTime === undefined ? {} : { lastSyncTime }),
    message,
    conditions,
  };
}

/** Namespaces svc itself and Kubernetes use: never shown, never managed. */
export const SYSTEM_NAMESPACES = ["kube-system", "kube-public", "kube-node-lease", SYSTEM_NAMESPACE] as const;

/** The namespaces users see: sorted, without system ones, within the connection's list when it has one. */
export function visibleNamespaces(
  names: readonly string[],
  connectionNamespaces: readonly string[] | undefined,
  /** svc's own namespace when it is installed elsewhere than svc-system. */
  serviceNamespace: string = SYSTEM_NAMESPACE,
): string[] {
  const hidden = new Set<string>([...SYSTEM_NAMESPACES, serviceNamespace]);
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

/** The shortest rescan period honoured: a smaller resyncPeriod ("0s", "1ms") would spin. */
export const MIN_RESYNC_MS = 1000;

/** How often a cluster is rescanned: its resyncPeriod (default DEFAULT_RESYNC_PERIOD), at least MIN_RESYNC_MS. */
export function clusterResyncMs(resyncPeriod: string | undefined): number {
  const fallback = goDurationMs(DEFAULT_RESYNC_PERIOD) ?? 300_000;
  return Math.max(MIN_RESYNC_MS, goDurationMs(resyncPeriod ?? DEFAULT_RESYNC_PERIOD) ?? fallback);
}

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
