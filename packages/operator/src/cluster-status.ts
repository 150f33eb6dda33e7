// The ClusterConnections' side of the operator: the local cluster registered at start-up, the
// FeatureFlag CRD installed in each cluster that lacks it, and each connection's status kept
// from the registry's health (phase and Ready condition decided by core's clusterStatus).
import type { KubeConfig } from "@kubernetes/client-node";
import {
  API_GROUP_VERSION,
  canonicalJson,
  CLUSTER_CONNECTION,
  CLUSTER_PHASES,
  clusterStatus,
  clusterResyncMs,
  FEATURE_FLAG,
  localClusterConnection,
  type ClusterConnectionStatus,
} from "@svc/core";
import {
  backoffDelay,
  describeFailure,
  KubeApiError,
  installCrds,
  type BackoffPolicy,
  type ClusterRegistry,
  type ConnectedCluster,
  type Logger,
  type ObjectWriter,
} from "@svc/kube";
import type { OperatorMetrics } from "./metrics.ts";

export interface ClusterStatusOptions {
  registry: ClusterRegistry;
  hubWriter: ObjectWriter;
  hubKubeConfig: KubeConfig;
  systemNamespace: string;
  localClusterId: string;
  /** Whether this process writes the cluster's status now (a sharded replica: it holds the cluster's Lease). */
  reportsFor: (id: string) => boolean;
  metrics: OperatorMetrics;
  logger: Logger;
  now: () => Date;
}

/** Whether a new status says something the stored one does not (lastSyncTime alone only after a resync period). */
export function statusWorthWriting(
  stored: ClusterConnectionStatus | undefined,
  next: ClusterConnectionStatus,
  resyncMs: number,
  now: Date,
): boolean {
  if (stored === undefined) return true;
  const { lastSyncTime: storedSync, ...storedRest } = stored;
  const { lastSyncTime: nextSync, ...nextRest } = next;
  if (canonicalJson(storedRest) !== canonicalJson(nextRest)) return true;
  if (nextSync === storedSync) return false;
  return storedSync === undefined || now.getTime() - Date.parse(storedSync) >= resyncMs;
}

function discoveredWorkloads(cluster: ConnectedCluster): number {
  return (
    cluster.deployments.list().length + cluster.statefulSets.list().length + cluster.daemonSets.list().length
  );
}

/** Retries of a failed CRD install in a registered cluster (someone must usually grant a permission). */
const CRD_INSTALL_BACKOFF: BackoffPolicy = { initialMs: 2000, maxMs: 60_000, factor: 2, jitter: 0.2 };

/** A cluster's CRD install: done (until the cluster is next ready), under way, or waiting to retry. */
interface CrdInstall {
  installed: boolean;
  running: boolean;
  attempts: number;
  /** Why the last attempt failed (never a credential), shown in the cluster's status meanwhile. */
  failure: string | undefined;
  retry: NodeJS.Timeout | undefined;
}

export class ClusterStatusReporter {
  readonly #options: ClusterStatusOptions;
  readonly #crdInstalls = new Map<string, CrdInstall>();
  readonly #reporting = new Set<Promise<void>>();
  #closed = false;
  /** Per cluster: the last report queued, and the one waiting to start after it (if any). */
  readonly #chains = new Map<string, { reporting: Promise<void>; next: { rescan: boolean } | undefined }>();

  constructor(options: ClusterStatusOptions) {
    this.#options = options;
  }

  /** Creates the local cluster's ClusterConnection when it does not exist (an existing one is left as it is). */
  async registerLocalCluster(): Promise<void> {
    const { hubWriter, hubKubeConfig, systemNamespace, localClusterId, logger } = this.#options;
    const ref = {
      apiVersion: API_GROUP_VERSION,
      kind: CLUSTER_CONNECTION.kind,
      metadata: { name: localClusterId, namespace: systemNamespace },
    };
    if ((await hubWriter.read(ref)) !== undefined) return;
    const connection = localClusterConnection({
      id: localClusterId,
      apiServer: hubKubeConfig.getCurrentCluster()?.server ?? "",
      systemNamespace,
    });
    if (
      (await hubWriter.create({
        ...connection,
        ...ref,
        metadata: { ...connection.metadata, ...ref.metadata },
      })) !== undefined
    )
      logger.info({ cluster: localClusterId }, "local cluster registered");
  }

  reportAll(): void {
    for (const cluster of this.#options.registry.list()) this.report(cluster.id);
  }

  /**
   * Writes the cluster's status when it changed (and, on a rescan, when only lastSyncTime did);
   * failures are logged and retried at the next report. A cluster's reports run one at a time,
   * each reading the registry when it starts: run side by side, an older report that finished
   * last would store the status it read before the newer one. Reports asked for while one runs
   * are merged into the one run after it.
   */
  report(id: string, { rescan = false } = {}): void {
    if (this.#closed) return;
    const chain = this.#chains.get(id);
    if (chain?.next !== undefined) {
      chain.next.rescan ||= rescan;
      return;
    }
    const next = { rescan };
    const reporting = (chain?.reporting ?? Promise.resolve())
      .then(() => {
        if (this.#chains.get(id)?.next === next) this.#chains.set(id, { reporting, next: undefined });
        return this.#report(id, next.rescan);
      })
      .catch((error: unknown) => {
        // 409: the connection was removed or re-created since it was read; the next report
        // (if it still exists) writes the status.
        const gone = error instanceof KubeApiError && error.status === 409;
        this.#options.logger[gone ? "debug" : "warn"](
          { cluster: id, err: error },
          "cluster status not written",
        );
      })
      .finally(() => {
        this.#reporting.delete(reporting);
        if (this.#chains.get(id)?.reporting === reporting) this.#chains.delete(id);
      });
    this.#chains.set(id, { reporting, next });
    this.#reporting.add(reporting);
  }

  /** Takes no more reports, drops the CRD install retries, and resolves when the reports under way are done. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const { retry } of this.#crdInstalls.values()) clearTimeout(retry);
    this.#crdInstalls.clear();
    await this.settled();
  }

  /** Resolves when the reports under way are done. */
  async settled(): Promise<void> {
    while (this.#reporting.size > 0) await Promise.all([...this.#reporting]);
  }

  async #report(id: string, rescan: boolean): Promise<void> {
    const { registry, hubWriter, systemNamespace, metrics, now } = this.#options;
    const cluster = registry.get(id);
    if (cluster === undefined) {
      // Removed: nothing of it stays behind, neither a retry nor its phase in the metrics.
      clearTimeout(this.#crdInstalls.get(id)?.retry);
      this.#crdInstalls.delete(id);
      for (const phase of CLUSTER_PHASES) metrics.clusterPhase.remove({ cluster: id, phase });
      return;
    }
    if (!this.#options.reportsFor(id)) return;
    let health = cluster.health();
    if (health.state === "ready") this.#crdInstalls.delete(id);
    if (health.state === "error" && /\b404\b|not found/i.test(health.message ?? "")) {
      const failure = await this.#installCrd(cluster);
      if (failure !== undefined)
        health = {
          ...health,
          message: `${health.message ?? ""}; installing svc's CRDs there failed: ${failure}`,
        };
    }
    // While the caches fill, the stored status stands: it changes when the cluster is ready or fails.
    if (health.state === "syncing") return;
    const connection = cluster.connection;
    const at = now();
    const status = clusterStatus(
      {
        health,
        discoveredWorkloads: health.state === "ready" ? discoveredWorkloads(cluster) : undefined,
        previous: connection?.status,
        generation: connection?.metadata.generation,
      },
      at,
    );
    for (const phase of CLUSTER_PHASES)
      metrics.clusterPhase.set({ cluster: id, phase }, phase === status.phase ? 1 : 0);
    if (connection === undefined) return;
    const resyncMs = rescan ? 0 : clusterResyncMs(connection.spec.resyncPeriod);
    if (!statusWorthWriting(connection.status, status, resyncMs, at)) return;
    const uid = connection.metadata.uid;
    await hubWriter.apply(
      {
        apiVersion: API_GROUP_VERSION,
        kind: CLUSTER_CONNECTION.kind,
        // The uid: a status write that reaches a connection removed meanwhile must not create it.
        metadata: { name: id, namespace: systemNamespace, ...(uid === undefined ? {} : { uid }) },
        status,
      },
      { force: true, subresource: "status" },
    );
  }

  /**
   * Installs svc's CRDs where the cluster answers that one is missing: once until the cluster is
   * next ready, and after a failure again with back-off. Returns the failure to show, if any.
   */
  async #installCrd(cluster: ConnectedCluster): Promise<string | undefined> {
    const { logger } = this.#options;
    const state: CrdInstall = this.#crdInstalls.get(cluster.id) ?? {
      installed: false,
      running: false,
      attempts: 0,
      failure: undefined,
      retry: undefined,
    };
    this.#crdInstalls.set(cluster.id, state);
    if (state.installed || state.running || state.retry !== undefined) return state.failure;
    state.running = true;
    logger.info({ cluster: cluster.id, crd: FEATURE_FLAG.plural }, "installing svc's CRDs");
    try {
      await installCrds(cluster.kubeConfig);
      Object.assign(state, { installed: true, attempts: 0, failure: undefined });
    } catch (error) {
      state.failure = describeFailure(error, "install CustomResourceDefinitions").message;
      const delayMs = backoffDelay(CRD_INSTALL_BACKOFF, state.attempts++, Math.random());
      logger.warn(
        { cluster: cluster.id, reason: state.failure, retryInMs: delayMs },
        "svc's CRDs not installed",
      );
      state.retry = setTimeout(() => {
        state.retry = undefined;
        this.report(cluster.id);
      }, delayMs);
      state.retry.unref();
    } finally {
      state.running = false;
    }
    return state.failure;
  }
}

/** Installs svc's CRDs in the hub when one is missing (a read only when both are there). */
export async function ensureHubCrds(writer: ObjectWriter, kubeConfig: KubeConfig): Promise<boolean> {
  const names = [FEATURE_FLAG.plural, CLUSTER_CONNECTION.plural].map((plural) => `${plural}.svc.io`);
  const found = await Promise.all(
    names.map((name) =>
      writer.read({
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name },
      }),
    ),
  );
  if (found.every((crd) => crd !== undefined)) return false;
  await installCrds(kubeConfig);
  return true;
}
