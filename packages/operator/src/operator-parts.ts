// The parts of `svc operator`, made before any starts (no I/O), each by a small function of the
// whole: a part that reads another does so in a callback, once both exist. runOperator
// (index.ts) starts them in groups: the metrics server and the hub's writer, then leader
// election; once this replica leads, the parts that act (actingGroups), closed in reverse.
import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { pino, type Logger } from "pino";
import { clusterResyncMs } from "@svc/core";
import {
  ClusterRegistry,
  KubeApiError,
  ObjectWriter,
  type ClusterRegistryOptions,
  type ConnectedCluster,
} from "@svc/kube";
import { closing, part, type Part, type Runnable, type RunnableGroups } from "@svc/process";
import { ClusterController } from "./cluster-controller.ts";
import { ClusterQueues } from "./cluster-queues.ts";
import { ClusterStatusReporter, ensureHubCrds } from "./cluster-status.ts";
import type { OperatorConfig } from "./config.ts";
import { holdsLead, nextOperatorState, type OperatorEvent, type OperatorState } from "./lifecycle.ts";
import { createOperatorMetrics, queueObservers } from "./metrics.ts";
import { metricsServer } from "./metrics-server.ts";
import { RolloutController } from "./rollout-controller.ts";
import { RolloutDriver } from "./rollout-driver.ts";
import { ClusterShards } from "./sharding.ts";

export interface OperatorOptions extends OperatorConfig {
  /** Overrides KUBECONFIG / in-cluster discovery. */
  kubeConfig?: KubeConfig;
  log?: Logger;
  /** Overrides of the cluster registry's timings (tests). */
  registry?: Partial<Omit<ClusterRegistryOptions, "hubKubeConfig" | "logger">>;
}

/** The operator's state; its leader metric and /readyz follow it (lifecycle.ts decides). */
export class Lifecycle {
  #state: OperatorState = "standby";
  readonly #onChange: (leads: boolean) => void;

  constructor(onChange: (leads: boolean) => void) {
    this.#onChange = onChange;
  }

  get state(): OperatorState {
    return this.#state;
  }

  /** Whether this replica holds the Lease and may write. */
  get leads(): boolean {
    return holdsLead(this.#state);
  }

  on(event: OperatorEvent): void {
    this.#state = nextOperatorState(this.#state, event);
    this.#onChange(this.leads);
  }
}

function loadKubeConfig(path: string | undefined): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (path === undefined) kubeConfig.loadFromCluster();
  else kubeConfig.loadFromFile(path);
  return kubeConfig;
}

/** Objects in each cluster's informer caches, for the metrics. */
function cacheSizes(registry: ClusterRegistry | undefined) {
  return (registry?.list() ?? []).flatMap((cluster) =>
    (
      [
        ["FeatureFlag", cluster.flags],
        ["Deployment", cluster.deployments],
        ["StatefulSet", cluster.statefulSets],
        ["DaemonSet", cluster.daemonSets],
        ["Namespace", cluster.namespaces],
      ] as const
    ).map(([kind, cache]) => ({ cluster: cluster.id, kind, objects: cache.list().length })),
  );
}

export class OperatorParts {
  readonly options: OperatorOptions;
  readonly log: Logger;
  readonly now = () => new Date();
  readonly hubKubeConfig: KubeConfig;
  /** Writes sent to API servers since start (applies, creates, deletes). */
  writes = 0;
  readonly countWrite = () => {
    this.writes++;
  };
  readonly hubWriter: ObjectWriter;
  // Scraped only once the metrics server listens, after every part exists.
  readonly metrics = createOperatorMetrics(
    () => ({ depth: this.queues.depth, delayed: this.queues.delayed }),
    () => cacheSizes(this.registry.current),
    () => this.registry.current?.registeredIds().length ?? 0,
  );
  readonly lifecycle = new Lifecycle((leads) => {
    this.metrics.leader.set(leads ? 1 : 0);
  });
  readonly metricsServer: Part<number>;
  readonly registry: Part<ClusterRegistry>;
  readonly status: Part<ClusterStatusReporter>;
  /** With sharding, the clusters whose Lease this replica holds: the registry connects only those. */
  readonly shards: ClusterShards | undefined;
  readonly queues: ClusterQueues;
  readonly rollouts: RolloutDriver;

  constructor(options: OperatorOptions) {
    this.options = options;
    this.log = options.log ?? pino({ level: options.logLevel, base: { component: "operator" } });
    this.hubKubeConfig = options.kubeConfig ?? loadKubeConfig(options.kubeconfigPath);
    this.hubWriter = new ObjectWriter(this.hubKubeConfig, {
      timeoutMs: options.requestTimeoutMs,
      onWrite: this.countWrite,
    });
    this.metricsServer = metricsServerPart(this);
    this.registry = registryPart(this);
    this.status = statusPart(this);
    this.shards = options.sharding ? clusterShards(this) : undefined;
    this.queues = clusterQueues(this);
    this.rollouts = rolloutDriver(this);
  }

  /** Whether this replica acts for cluster `id` (with sharding: holds its Lease). */
  mayAct(id: string): boolean {
    return this.shards?.holds(id) ?? true;
  }
}

/** The metrics server (/metrics, /healthz, /readyz); its value is the port it listens on. */
function metricsServerPart({ options, metrics, lifecycle }: OperatorParts): Part<number> {
  let server: Server | undefined;
  return part(
    "metrics server",
    async () => {
      const listening = metricsServer(
        async () => metrics.registry.metrics(),
        metrics.registry.contentType,
        () => lifecycle.leads,
      );
      server = listening;
      listening.listen(options.metricsPort, options.metricsHost);
      await once(listening, "listening");
      return (listening.address() as AddressInfo).port;
    },
    () => {
      server?.close();
      server?.closeAllConnections();
      return Promise.resolve();
    },
  );
}

/** The cluster registry: a connection, caches and health per registered cluster. */
function registryPart(parts: OperatorParts): Part<ClusterRegistry> {
  const { options, log, hubKubeConfig } = parts;
  return part(
    "cluster registry",
    (signal) =>
      ClusterRegistry.start(
        {
          hubKubeConfig,
          localClusterId: options.clusterId,
          systemNamespace: options.systemNamespace,
          requestTimeoutMs: options.requestTimeoutMs,
          logger: log,
          // A cluster whose Lease renewal came late keeps its caches while its writes pause.
          connects: (id) => parts.shards?.caches(id) ?? true,
          ...options.registry,
        },
        signal,
      ),
    (registry) => registry.close(),
  );
}

/** The local cluster's ClusterConnection, then every cluster's status in the hub (closed by delivery). */
function statusPart(parts: OperatorParts): Part<ClusterStatusReporter> {
  const { options, log, now, hubKubeConfig, hubWriter, metrics } = parts;
  return part(
    "local cluster's registration",
    async () => {
      const reporter = new ClusterStatusReporter({
        registry: parts.registry.value,
        hubWriter,
        hubKubeConfig,
        systemNamespace: options.systemNamespace,
        localClusterId: options.clusterId,
        reportsFor: (id) => parts.mayAct(id),
        metrics,
        logger: log,
        now,
      });
      await reporter.registerLocalCluster();
      return reporter;
      // Delivery closes it before the Leases are handed back; this close is for a start that failed before then.
    },
    (reporter) => reporter.close(),
  );
}

function clusterShards(parts: OperatorParts): ClusterShards {
  const { options, log, now, hubWriter, metrics } = parts;
  const shards: ClusterShards = new ClusterShards({
    writer: hubWriter,
    namespace: options.systemNamespace,
    identity: options.identity,
    leaseDurationMs: options.leaseDurationMs,
    now,
    logger: log,
    registered: () => parts.registry.current?.registeredIds() ?? [],
    onHeldChange: () => {
      metrics.clustersHeld.set(shards.heldCount);
      parts.registry.current?.refresh();
      parts.rollouts.sync();
    },
    stopCluster: (id) => parts.queues.disconnect(id),
    pauseCluster: (id) => parts.queues.pause(id),
    resumeCluster: (id) => {
      const cluster = parts.registry.current?.get(id);
      if (cluster !== undefined && parts.lifecycle.leads) parts.queues.resume(cluster);
      parts.status.current?.report(id);
    },
  });
  return shards;
}

/** A work queue and controller per connected cluster. */
function clusterQueues(parts: OperatorParts): ClusterQueues {
  const { options, log, metrics, now } = parts;
  return new ClusterQueues({
    concurrency: options.concurrency,
    queue: {
      onTerminal: (key, error) => {
        log.warn({ key, err: error }, "reconcile failed; not retried until the object changes");
      },
      ...queueObservers(metrics),
      onError: (key, error, retry, delayMs) => {
        // A 409 is the optimistic lock at work (the object changed since it was cached): expected
        // while controllers update the same objects, planned again at once.
        const conflict = error instanceof KubeApiError && error.status === 409;
        log[conflict && retry < 3 ? "debug" : "warn"](
          { key, err: error, retry, delayMs },
          "reconcile failed; retrying",
        );
      },
    },
    writer: (cluster) =>
      cluster.writerWith({
        timeoutMs: options.requestTimeoutMs,
        onWrite: (verb, ref) => {
          parts.countWrite();
          metrics.writes.inc({ cluster: cluster.id, verb, kind: ref.kind });
        },
      }),
    controller: (cluster, writer, enqueue) =>
      new ClusterController({
        cluster,
        writer,
        enqueue,
        sidecar: options.sidecar,
        // svc's own namespace is the one it runs in, whatever the settings say it was.
        delivery: { ...options.delivery, serviceNamespace: options.systemNamespace },
        metrics,
        logger: log,
        now,
      }),
    rescanMs: (id) => {
      const connection = parts.registry.current?.get(id)?.connection;
      return connection === undefined ? options.resyncMs : clusterResyncMs(connection.spec.resyncPeriod);
    },
    onRescan: (id) => {
      parts.status.current?.report(id, { rescan: true });
    },
  });
}

/** FlagRollouts are driven by the replica that acts for the hub (the local cluster). */
function rolloutDriver(parts: OperatorParts): RolloutDriver {
  const { options, log, now, hubKubeConfig, hubWriter } = parts;
  return new RolloutDriver(
    () =>
      new RolloutController({
        hubKubeConfig,
        connections: () => parts.registry.current?.connections() ?? [],
        hubWriter,
        systemNamespace: options.systemNamespace,
        localClusterId: options.clusterId,
        requestTimeoutMs: options.requestTimeoutMs,
        logger: log,
        now,
        onWrite: parts.countWrite,
      }),
    () => parts.lifecycle.state === "leading" && parts.mayAct(options.clusterId),
  );
}

/**
 * The cluster Leases: its first round before the operator reports ready (the Leases that still
 * name it renewed; free clusters wait until it has seen the replicas starting with it); they
 * connect as taken. On close it hands the held Leases back: after the queues stopped, which
 * close before it.
 */
function shardsPart(shards: ClusterShards): Runnable {
  const stopping = new AbortController();
  let running: Promise<void> | undefined;
  return {
    name: "cluster Leases",
    start: async () => {
      let firstRound: () => void = () => undefined;
      const tookClusters = new Promise<void>((resolve) => (firstRound = resolve));
      running = shards.run(stopping.signal, firstRound);
      await Promise.race([tookClusters, running]);
    },
    close: async () => {
      stopping.abort();
      await running;
    },
  };
}

/**
 * Delivery: every cluster connected to its queue and kept so as the registry changes, and their
 * status reported. On close the queues drain, then the status reports stop.
 */
function deliveryPart(parts: OperatorParts): Runnable {
  const { queues, lifecycle } = parts;
  const connect = (cluster: ConnectedCluster) => {
    // A registry event that arrives while closing, or for a cluster handed over, connects nothing.
    if (lifecycle.leads && parts.mayAct(cluster.id)) queues.connect(cluster);
  };
  return {
    name: "delivery",
    start: () => {
      const registry = parts.registry.value;
      const status = parts.status.value;
      for (const cluster of registry.list()) connect(cluster);
      registry.onChange((event) => {
        const cluster = registry.get(event.id);
        if (event.type === "removed" || cluster === undefined) void queues.disconnect(event.id);
        else if (event.type === "added" || event.type === "changed") connect(cluster);
        // Back to ready after syncing or an outage: the caches may hold changes not yet seen.
        else if (cluster.health().state === "ready") queues.enqueueAll(event.id);
        status.report(event.id);
      });
      status.reportAll();
      return Promise.resolve();
    },
    close: async () => {
      await queues.shutDown();
      await parts.status.current?.close();
    },
  };
}

/** What acts once this replica leads, in the order it starts; closed in reverse. */
export function actingGroups(parts: OperatorParts): RunnableGroups {
  const { hubWriter, hubKubeConfig, log, shards } = parts;
  const crds: Runnable = {
    name: "hub CRDs",
    start: async () => {
      if (await ensureHubCrds(hubWriter, hubKubeConfig)) log.info("svc's CRDs installed in the hub");
    },
  };
  return [
    [crds],
    [parts.registry],
    [parts.status],
    ...(shards === undefined ? [] : [[shardsPart(shards)]]),
    [deliveryPart(parts)],
    // Started by runOperator once leading; stopped first, so its writes finish before the rest.
    [closing("FlagRollouts", () => parts.rollouts.stop())],
  ];
}
