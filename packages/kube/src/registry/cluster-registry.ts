// Every cluster svc manages, connected: the local one through the process's own credentials,
// and one per ClusterConnection in svc-system of the hub, followed at run time (added, changed
// in spec or Secret, removed) without a restart.
import type { KubeConfig } from "@kubernetes/client-node";
import { API_GROUP_VERSION, CLUSTER_CONNECTION, SYSTEM_NAMESPACE } from "@svc/core";
import { DEFAULT_BACKOFF, type BackoffPolicy } from "../backoff.ts";
import { waitFor } from "../wait.ts";
import { ClusterRuntime, type ConnectedCluster } from "./connected-cluster.ts";
import { clusterCredentials, connectionFingerprint, placeholderConfig } from "./credentials.ts";
import { ObjectStore } from "./informer-cache.ts";
import { Reflector } from "./reflector.ts";
import { ClusterTransport } from "./transport.ts";
import { silentLogger, type ClusterConnectionResource, type Logger, type SecretJson } from "./types.ts";

export interface ClusterRegistryOptions {
  /** The process's own credentials (in-cluster or kubeconfig): the hub, which is the local cluster. */
  hubKubeConfig: KubeConfig;
  /** Where ClusterConnections and their Secrets live. Default svc-system. */
  systemNamespace?: string;
  /** SVC_CLUSTER_ID: the local cluster's id. Default "local". */
  localClusterId?: string;
  /** Bound on every call to a cluster. Default 5000 ms. */
  requestTimeoutMs?: number;
  /** How often each cluster's /version is probed. Default 5000 ms. */
  probeIntervalMs?: number;
  /** A watch silent for this long is restarted. Default 120 000 ms (bookmarks come about every minute). */
  watchdogMs?: number;
  /** Bound on start(): the hub's list and the local cluster's sync. Default 30 000 ms. */
  startTimeoutMs?: number;
  backoff?: BackoffPolicy;
  random?: () => number;
  logger?: Logger;
  /**
   * Which registered clusters this process connects (a sharded operator replica: those whose
   * Lease it holds). Default: all. Asked again at each change and on refresh().
   */
  connects?: (id: string) => boolean;
}

export type ClusterRegistryEvent = { type: "added" | "removed" | "changed" | "health"; id: string };

interface Entry {
  runtime: ClusterRuntime;
  fingerprint: string;
}

export class ClusterRegistry {
  readonly #options: Required<Omit<ClusterRegistryOptions, "logger">> & { logger: Logger };
  readonly #hub: ClusterTransport;
  readonly #connections: ObjectStore<ClusterConnectionResource>;
  readonly #secrets: ObjectStore<SecretJson>;
  readonly #hubReflectors: Reflector<ClusterConnectionResource | SecretJson>[];
  readonly #clusters = new Map<string, Entry>();
  readonly #listeners = new Set<(event: ClusterRegistryEvent) => void>();
  #sorted: readonly ConnectedCluster[] = [];
  #reconcileQueued = false;
  #closed = false;

  private constructor(options: ClusterRegistryOptions) {
    const logger = options.logger ?? silentLogger;
    this.#options = {
      systemNamespace: SYSTEM_NAMESPACE,
      localClusterId: "local",
      requestTimeoutMs: 5000,
      probeIntervalMs: 5000,
      watchdogMs: 120_000,
      startTimeoutMs: 30_000,
      backoff: DEFAULT_BACKOFF,
      random: Math.random,
      connects: () => true,
      ...options,
      logger,
    };
    const { systemNamespace, requestTimeoutMs, watchdogMs, backoff, random } = this.#options;
    this.#hub = new ClusterTransport(options.hubKubeConfig);
    const onListenerError = (error: unknown) => {
      logger.error({ err: error }, "cluster registry listener failed");
    };
    this.#connections = new ObjectStore(onListenerError);
    this.#secrets = new ObjectStore(onListenerError);
    const common = {
      transport: this.#hub,
      namespace: systemNamespace,
      requestTimeoutMs,
      watchdogMs,
      backoff,
      random,
      logger,
    };
    const connections = new Reflector<ClusterConnectionResource>({
      ...common,
      description: `list ClusterConnections in ${systemNamespace}`,
      path: `/apis/${API_GROUP_VERSION}/namespaces/${systemNamespace}/${CLUSTER_CONNECTION.plural}`,
      store: this.#connections,
      decode: (raw) => raw as ClusterConnectionResource,
      onOutcome: () => {
        this.#queueReconcile();
      },
    });
    const secrets = new Reflector<SecretJson>({
      ...common,
      description: `list Secrets in ${systemNamespace}`,
      path: `/api/v1/namespaces/${systemNamespace}/secrets`,
      // Helm keeps each release of a chart installed in svc-system as a Secret of up to 1 MiB:
      // never credentials, not worth caching.
      fieldSelector: "type!=helm.sh/release.v1",
      store: this.#secrets,
      decode: (raw) => raw as SecretJson,
      onOutcome: () => {
        this.#queueReconcile();
      },
    });
    this.#hubReflectors = [connections, secrets] as Reflector<ClusterConnectionResource | SecretJson>[];
    this.#connections.onEvent(() => {
      this.#queueReconcile();
    });
    this.#secrets.onEvent(() => {
      this.#queueReconcile();
    });
  }

  /**
   * Starts following the hub's ClusterConnections; resolves once they are listed and the local
   * cluster's caches are synced, or after startTimeoutMs (then with a warning: clusters keep
   * connecting in the background and report their state through health()). When `signal`
   * aborts (its owner shuts down), it resolves at once; the caller closes the registry.
   */
  static async start(options: ClusterRegistryOptions, signal?: AbortSignal): Promise<ClusterRegistry> {
    const registry = new ClusterRegistry(options);
    await registry.#start(signal);
    return registry;
  }

  /** Every connected cluster: the local one first, then by id. */
  list(): readonly ConnectedCluster[] {
    return this.#sorted;
  }

  get(id: string): ConnectedCluster | undefined {
    return this.#clusters.get(id)?.runtime;
  }

  /** The ids of every registered cluster, connected here or not: the local one and each ClusterConnection's. */
  registeredIds(): string[] {
    return [...this.#registered().keys()];
  }

  /** Every ClusterConnection of the system namespace, as its watch has them (connected here or not). */
  connections(): readonly ClusterConnectionResource[] {
    return this.#connections.list(this.#options.systemNamespace);
  }

  /** Connects and disconnects clusters as `connects` now answers. */
  refresh(): void {
    this.#queueReconcile();
  }

  onChange(listener: (event: ClusterRegistryEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Stops every informer and probe and closes every connection pool. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#hubReflectors.map((r) => r.stop()));
    const entries = [...this.#clusters.values()];
    this.#clusters.clear();
    this.#sorted = [];
    await Promise.all(entries.map((e) => e.runtime.close()));
    await this.#hub.close();
  }

  async #start(signal: AbortSignal | undefined): Promise<void> {
    const { startTimeoutMs, logger, localClusterId } = this.#options;
    const deadline = Date.now() + startTimeoutMs;
    for (const reflector of this.#hubReflectors) reflector.start();
    // An error (no ClusterConnection CRD, no permission) will not mend itself while we wait.
    const hubFailing = () => this.#hubReflectors.some((r) => r.outcome().failure?.kind === "error");
    const aborted = () => signal?.aborted === true;
    await waitFor(() => this.#hubSynced() || hubFailing() || aborted(), Boolean, {
      what: "the hub's ClusterConnections listed",
      timeoutMs: startTimeoutMs,
      intervalMs: 50,
    }).catch(() => undefined);
    if (aborted()) return;
    if (!this.#hubSynced())
      logger.warn(
        { failures: this.#hubReflectors.map((r) => r.outcome().failure?.message).filter(Boolean) },
        "ClusterConnections not listed in time; registered clusters will connect when they are",
      );
    this.#reconcile();
    const local = this.get(localClusterId);
    const synced = local?.whenSynced(Math.max(0, deadline - Date.now())).catch((error: unknown) => {
      if (aborted()) return;
      logger.warn(
        { cluster: localClusterId, reason: (error as Error).message },
        "local cluster not synced at start",
      );
    });
    const abort = new Promise<void>((resolve) => {
      signal?.addEventListener(
        "abort",
        () => {
          resolve();
        },
        { once: true },
      );
    });
    await Promise.race([synced, abort]);
  }

  /** Each registered cluster's id and ClusterConnection (none for a local cluster not registered yet). */
  #registered(): Map<string, ClusterConnectionResource | undefined> {
    const { localClusterId, systemNamespace } = this.#options;
    const registered = new Map<string, ClusterConnectionResource | undefined>([
      [localClusterId, this.#connections.get(systemNamespace, localClusterId)],
    ]);
    // Until both are listed, a connection could look as if its Secret were missing.
    if (this.#hubSynced())
      for (const connection of this.#connections.list()) registered.set(connection.metadata.name, connection);
    else
      for (const id of this.#clusters.keys())
        if (!registered.has(id)) registered.set(id, this.#connections.get(systemNamespace, id));
    return registered;
  }

  #hubSynced(): boolean {
    return this.#hubReflectors.every((r) => r.outcome().synced);
  }

  #queueReconcile(): void {
    if (this.#reconcileQueued) return;
    this.#reconcileQueued = true;
    queueMicrotask(() => {
      this.#reconcileQueued = false;
      this.#reconcile();
    });
  }

  /** Brings the running clusters in line with the ClusterConnections and Secrets in the cache. */
  #reconcile(): void {
    if (this.#closed) return;
    const desired = this.#registered();
    for (const id of desired.keys()) if (!this.#options.connects(id)) desired.delete(id);
    const events: ClusterRegistryEvent[] = [];
    for (const [id, entry] of [...this.#clusters]) {
      if (desired.has(id)) continue;
      this.#clusters.delete(id);
      this.#closeInBackground(entry.runtime);
      events.push({ type: "removed", id });
    }
    for (const [id, connection] of desired) {
      const secret = this.#secretOf(connection);
      const fingerprint = connectionFingerprint(id === this.#options.localClusterId, connection, secret);
      const current = this.#clusters.get(id);
      if (current?.fingerprint === fingerprint) continue;
      if (current !== undefined) this.#closeInBackground(current.runtime);
      const runtime = this.#connect(id, connection, secret);
      this.#clusters.set(id, { runtime, fingerprint });
      runtime.start();
      events.push({ type: current === undefined ? "added" : "changed", id });
    }
    if (events.length === 0) return;
    this.#sorted = [...this.#clusters.values()]
      .map((e) => e.runtime)
      .sort((a, b) => (a.local !== b.local ? (a.local ? -1 : 1) : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const event of events) {
      this.#options.logger.info({ cluster: event.id }, `cluster ${event.type}`);
      this.#emit(event);
    }
  }

  #closeInBackground(runtime: ClusterRuntime): void {
    runtime.close().catch((error: unknown) => {
      this.#options.logger.error(
        { cluster: runtime.id, err: error },
        "closing a cluster's connection failed",
      );
    });
  }

  #secretOf(connection: ClusterConnectionResource | undefined): SecretJson | undefined {
    const name = connection?.spec.credentialRef?.name;
    return name === undefined ? undefined : this.#secrets.get(this.#options.systemNamespace, name);
  }

  #connect(
    id: string,
    connection: ClusterConnectionResource | undefined,
    secret: SecretJson | undefined,
  ): ClusterRuntime {
    const { hubKubeConfig, systemNamespace, localClusterId, logger, ...timing } = this.#options;
    const local = id === localClusterId;
    let credentials: ConstructorParameters<typeof ClusterRuntime>[0]["credentials"];
    if (local || connection === undefined) credentials = { ok: true, kubeConfig: hubKubeConfig };
    else {
      const built = clusterCredentials(connection, secret);
      credentials = built.ok
        ? built
        : { ...built, kubeConfig: placeholderConfig(id, connection.spec.apiServer) };
    }
    const namespaces = connection?.spec.namespaces;
    return new ClusterRuntime({
      id,
      local,
      connection: () => this.#connections.get(systemNamespace, id),
      credentials,
      namespaces: namespaces === undefined || namespaces.length === 0 ? undefined : [...namespaces].sort(),
      requestTimeoutMs: timing.requestTimeoutMs,
      probeIntervalMs: timing.probeIntervalMs,
      watchdogMs: timing.watchdogMs,
      backoff: timing.backoff,
      random: timing.random,
      logger,
      onHealthChange: () => {
        this.#emit({ type: "health", id });
      },
    });
  }

  #emit(event: ClusterRegistryEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#options.logger.error({ err: error }, "cluster registry listener failed");
      }
    }
  }
}
