// One connected cluster: its connection pool and writer, its informer caches, its /version probe
// and its health.
import type { KubeConfig, V1Namespace } from "@kubernetes/client-node";
import { setTimeout as sleep } from "node:timers/promises";
import { ObjectWriter, type ObjectWriterOptions } from "../apply.ts";
import type { BackoffPolicy } from "../backoff.ts";
import {
  ClusterUnavailableError,
  decideHealth,
  describeFailure,
  type ClusterHealth,
  type SourceOutcome,
} from "./health.ts";
import { SYSTEM_NAMESPACES, type WorkloadObject } from "@svc/core";
import { FlagVersionStore, type FlagVersions } from "./flag-versions.ts";
import { ObjectStore, type InformerCache, type ObjectWithMeta } from "./informer-cache.ts";
import { DAEMON_SETS, DEPLOYMENTS, FLAGS, NAMESPACES, STATEFUL_SETS, type CachedKind } from "./kinds.ts";
import { Reflector } from "./reflector.ts";
import { ClusterTransport } from "./transport.ts";
import { type ClusterConnectionResource, type FeatureFlagResource, type Logger } from "./types.ts";

/** How often /version is asked while the cluster or one of its informers is unreachable. */
export const UNHEALTHY_PROBE_INTERVAL_MS = 1000;

export interface ConnectedCluster {
  readonly id: string;
  readonly local: boolean;
  /** The ClusterConnection in svc-system (undefined for the local cluster when none exists). */
  readonly connection: ClusterConnectionResource | undefined;
  readonly kubeConfig: KubeConfig;
  /**
   * Reads and writes of objects over the cluster's one connection pool (field manager "svc"),
   * every call bounded by the registry's requestTimeoutMs.
   */
  readonly writer: ObjectWriter;
  /** Another writer over the same pool, with options of its own (e.g. counting its writes). */
  writerWith(options: Omit<ObjectWriterOptions, "transport">): ObjectWriter;
  readonly flags: InformerCache<FeatureFlagResource>;
  /** The recent generations of each cached flag: which spec a client's resourceVersion had. */
  readonly flagVersions: FlagVersions;
  /** Workloads as trimmed for the cache: only the fields svc reads (kinds.ts). */
  readonly deployments: InformerCache<WorkloadObject>;
  readonly statefulSets: InformerCache<WorkloadObject>;
  readonly daemonSets: InformerCache<WorkloadObject>;
  readonly namespaces: InformerCache<V1Namespace>;
  /** The namespaces scanned: the connection's spec.namespaces, undefined for all but the system ones. */
  readonly scannedNamespaces: readonly string[] | undefined;
  health(): ClusterHealth;
  /** Resolves when every cache is synced; rejects with ClusterUnavailableError when the cluster is unreachable, in error, or not synced within `timeoutMs`. */
  whenSynced(timeoutMs: number): Promise<void>;
}

export interface ClusterRuntimeOptions {
  id: string;
  local: boolean;
  connection: () => ClusterConnectionResource | undefined;
  /** A client configuration, or why none could be built from the credentials. */
  credentials: { ok: true; kubeConfig: KubeConfig } | { ok: false; message: string; kubeConfig: KubeConfig };
  namespaces: readonly string[] | undefined;
  requestTimeoutMs: number;
  probeIntervalMs: number;
  watchdogMs: number;
  backoff: BackoffPolicy;
  random: () => number;
  logger: Logger;
  onHealthChange: () => void;
}

export class ClusterRuntime implements ConnectedCluster {
  readonly id: string;
  readonly local: boolean;
  readonly kubeConfig: KubeConfig;
  readonly writer: ObjectWriter;
  readonly flags: ObjectStore<FeatureFlagResource>;
  readonly flagVersions: FlagVersionStore;
  readonly deployments: ObjectStore<WorkloadObject>;
  readonly statefulSets: ObjectStore<WorkloadObject>;
  readonly daemonSets: ObjectStore<WorkloadObject>;
  readonly namespaces: ObjectStore<V1Namespace>;
  readonly scannedNamespaces: readonly string[] | undefined;
  readonly #options: ClusterRuntimeOptions;
  readonly #transport: ClusterTransport;
  readonly #reflectors: Reflector<ObjectWithMeta>[] = [];
  readonly #stopping = new AbortController();
  readonly #healthListeners = new Set<() => void>();
  #probe: SourceOutcome = { synced: false };
  #probing: Promise<void> | undefined;
  #kubernetesVersion: string | undefined;
  #lastSyncTime: string | undefined;
  #lastHealth = "";

  constructor(options: ClusterRuntimeOptions) {
    this.#options = options;
    this.id = options.id;
    this.local = options.local;
    this.kubeConfig = options.credentials.kubeConfig;
    this.scannedNamespaces = options.namespaces;
    this.#transport = new ClusterTransport(this.kubeConfig);
    this.writer = new ObjectWriter(this.kubeConfig, {
      timeoutMs: options.requestTimeoutMs,
      transport: this.#transport,
    });
    const onListenerError = (error: unknown) => {
      options.logger.error({ cluster: this.id, err: error }, "a cache listener failed");
    };
    this.flags = new ObjectStore(onListenerError);
    this.flagVersions = new FlagVersionStore(this.flags);
    this.deployments = new ObjectStore(onListenerError);
    this.statefulSets = new ObjectStore(onListenerError);
    this.daemonSets = new ObjectStore(onListenerError);
    this.namespaces = new ObjectStore(onListenerError);
  }

  writerWith(options: Omit<ObjectWriterOptions, "transport">): ObjectWriter {
    return new ObjectWriter(this.kubeConfig, { ...options, transport: this.#transport });
  }

  get connection(): ClusterConnectionResource | undefined {
    return this.#options.connection();
  }

  start(): void {
    if (!this.#options.credentials.ok) {
      this.#healthMayHaveChanged();
      return;
    }
    this.#watch(FLAGS, this.flags);
    this.#watch(DEPLOYMENTS, this.deployments);
    this.#watch(STATEFUL_SETS, this.statefulSets);
    this.#watch(DAEMON_SETS, this.daemonSets);
    this.#watch(NAMESPACES, this.namespaces);
    for (const reflector of this.#reflectors) reflector.start();
    this.#probing = this.#probeLoop();
  }

  async close(): Promise<void> {
    this.#stopping.abort();
    await Promise.all([...this.#reflectors.map((r) => r.stop()), this.#probing]);
    await this.#transport.close();
  }

  health(): ClusterHealth {
    const configError = this.#options.credentials.ok ? undefined : this.#options.credentials.message;
    const decided = decideHealth({
      configError,
      sources: [this.#probe, ...this.#reflectors.map((r) => r.outcome())],
    });
    return {
      ...decided,
      ...(this.#kubernetesVersion === undefined ? {} : { kubernetesVersion: this.#kubernetesVersion }),
      ...(this.#lastSyncTime === undefined ? {} : { lastSyncTime: this.#lastSyncTime }),
    };
  }

  whenSynced(timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const settle = (): boolean => {
        const health = this.health();
        if (health.state === "ready") resolve();
        else if (health.state === "unreachable" || health.state === "error")
          reject(new ClusterUnavailableError(this.id, health));
        else return false;
        return true;
      };
      if (settle()) return;
      const timer = setTimeout(() => {
        this.#healthListeners.delete(listener);
        reject(
          new ClusterUnavailableError(
            this.id,
            this.health(),
            `cluster ${this.id} is not synced after ${timeoutMs} ms`,
          ),
        );
      }, timeoutMs);
      const listener = () => {
        if (!settle()) return;
        clearTimeout(timer);
        this.#healthListeners.delete(listener);
      };
      this.#healthListeners.add(listener);
    });
  }

  #watch<T extends ObjectWithMeta>(kind: CachedKind<T>, store: ObjectStore<T>): void {
    const { namespaces } = this.#options;
    const scopes = kind.namespaced && namespaces !== undefined ? namespaces : [undefined];
    const keep = kind.namespaced
      ? namespaces === undefined
        ? (object: T) => !(SYSTEM_NAMESPACES as readonly string[]).includes(object.metadata?.namespace ?? "")
        : undefined
      : namespaces === undefined
        ? undefined
        : (object: T) => namespaces.includes(object.metadata?.name ?? "");
    for (const namespace of scopes) {
      const reflector = new Reflector<T>({
        description: `list ${kind.plural}${namespace === undefined ? "" : ` in ${namespace}`}`,
        transport: this.#transport,
        path: kind.path(namespace),
        namespace,
        store,
        decode: kind.decode,
        ...(keep === undefined ? {} : { keep }),
        requestTimeoutMs: this.#options.requestTimeoutMs,
        watchdogMs: this.#options.watchdogMs,
        backoff: this.#options.backoff,
        random: this.#options.random,
        onOutcome: () => {
          this.#healthMayHaveChanged();
        },
        logger: this.#options.logger,
      });
      this.#reflectors.push(reflector as unknown as Reflector<ObjectWithMeta>);
    }
  }

  /** GET /version every probeIntervalMs (every UNHEALTHY_PROBE_INTERVAL_MS while something fails): the cluster's version, and an outage seen even when no watch notices. */
  async #probeLoop(): Promise<void> {
    const { requestTimeoutMs, probeIntervalMs } = this.#options;
    const stopped = () => this.#stopping.signal.aborted;
    while (!stopped()) {
      try {
        const version = (await this.#transport.getJson(
          "/version",
          {},
          requestTimeoutMs,
          this.#stopping.signal,
        )) as {
          gitVersion?: string;
        };
        const recovered = this.#probe.failure !== undefined || this.#reflectorFailing();
        this.#kubernetesVersion = version.gitVersion;
        this.#probe = { synced: true };
        // The API server answers: informers waiting out a back-off retry now. Also while one
        // still fails after /version came back (a restarted API server answers 429 while its
        // watch cache fills): its back-off may have grown to many seconds by then.
        if (recovered) for (const reflector of this.#reflectors) reflector.retryNow();
      } catch (error) {
        if (stopped()) break;
        this.#probe = { synced: this.#probe.synced, failure: describeFailure(error, "get /version") };
      }
      this.#healthMayHaveChanged();
      // Every second while something fails, so that recovery is noticed within a second.
      const unhealthy = this.#probe.failure !== undefined || this.#reflectorFailing();
      const pause = unhealthy ? Math.min(UNHEALTHY_PROBE_INTERVAL_MS, probeIntervalMs) : probeIntervalMs;
      await sleep(pause, undefined, { signal: this.#stopping.signal }).catch(() => undefined);
    }
  }

  /** An informer that cannot reach the API server (not one refused for good: a 403 keeps its back-off). */
  #reflectorFailing(): boolean {
    return this.#reflectors.some((r) => r.outcome().failure?.kind === "unreachable");
  }

  #healthMayHaveChanged(): void {
    const health = this.health();
    if (health.state === "ready" && this.#probe.failure === undefined)
      this.#lastSyncTime = new Date().toISOString();
    const key = `${health.state}\u0000${health.message ?? ""}`;
    for (const listener of [...this.#healthListeners]) listener();
    if (key === this.#lastHealth) return;
    if (health.state === "unreachable" || health.state === "error")
      this.#options.logger.warn(
        { cluster: this.id, state: health.state, reason: health.message },
        "cluster unavailable",
      );
    else this.#options.logger.info({ cluster: this.id, state: health.state }, "cluster health");
    this.#lastHealth = key;
    this.#options.onHealthChange();
  }
}
