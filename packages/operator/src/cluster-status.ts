// The ClusterConnections' side of the operator: the local cluster registered at start-up, the
// FeatureFlag CRD installed in each cluster that lacks it, and each connection's status kept
// from the registry's health (phase and Ready condition decided by core's clusterStatus).
import type { KubeConfig } from "@kubernetes/client-node";
import {
  API_GROUP_VERSION,
  CLUSTER_CONNECTION,
  CLUSTER_PHASES,
  clusterStatus,
  DEFAULT_RESYNC_PERIOD,
  FEATURE_FLAG,
  goDurationMs,
  localClusterConnection,
  type ClusterConnectionStatus,
} from "@svc/core";
import {
  installCrds,
  type ClusterRegistry,
  type ConnectedCluster,
  type Logger,
  type ObjectWriter,
} from "@svc/kube";
import { canonicalJson } from "./canonical-json.ts";
import type { OperatorMetrics } from "./metrics.ts";

export interface ClusterStatusOptions {
  registry: ClusterRegistry;
  hubWriter: ObjectWriter;
  hubKubeConfig: KubeConfig;
  systemNamespace: string;
  localClusterId: string;
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

export class ClusterStatusReporter {
  readonly #options: ClusterStatusOptions;
  readonly #crdChecked = new Set<string>();
  readonly #reporting = new Set<Promise<void>>();

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

  /** Writes the cluster's status when it changed; failures are logged and retried at the next report. */
  report(id: string): void {
    const reporting = this.#report(id)
      .catch((error: unknown) => {
        this.#options.logger.warn({ cluster: id, err: error }, "cluster status not written");
      })
      .finally(() => this.#reporting.delete(reporting));
    this.#reporting.add(reporting);
  }

  /** Resolves when the reports under way are done. */
  async settled(): Promise<void> {
    while (this.#reporting.size > 0) await Promise.all([...this.#reporting]);
  }

  async #report(id: string): Promise<void> {
    const { registry, hubWriter, systemNamespace, metrics, now } = this.#options;
    const cluster = registry.get(id);
    if (cluster === undefined) return;
    const health = cluster.health();
    if (health.state === "error" && /\b404\b|not found/i.test(health.message ?? ""))
      await this.#installCrd(cluster);
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
    const resyncMs = goDurationMs(connection.spec.resyncPeriod ?? DEFAULT_RESYNC_PERIOD) ?? 300_000;
    if (!statusWorthWriting(connection.status, status, resyncMs, at)) return;
    await hubWriter.apply(
      {
        apiVersion: API_GROUP_VERSION,
        kind: CLUSTER_CONNECTION.kind,
        metadata: { name: id, namespace: systemNamespace },
        status,
      },
      { force: true, subresource: "status" },
    );
  }

  /** The FeatureFlag CRD, installed once per connection when the cluster answers that it lacks it. */
  async #installCrd(cluster: ConnectedCluster): Promise<void> {
    if (this.#crdChecked.has(cluster.id)) return;
    this.#crdChecked.add(cluster.id);
    this.#options.logger.info({ cluster: cluster.id, crd: FEATURE_FLAG.plural }, "installing svc's CRDs");
    await installCrds(cluster.kubeConfig);
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
