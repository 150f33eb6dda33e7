// `svc operator`: delivers FeatureFlags to the workloads of every registered cluster and keeps
// the flags' status. runOperator wires the parts (cluster registry → a controller and work
// queue per cluster, leader election, metrics server) and owns their lifecycle (lifecycle.ts).
import { once } from "node:events";
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
import { ClusterController } from "./cluster-controller.ts";
import { ClusterQueues, type ClusterQueuesOptions } from "./cluster-queues.ts";
import { ClusterStatusReporter, ensureHubCrds } from "./cluster-status.ts";
import type { OperatorConfig } from "./config.ts";
import { runLeaderElection } from "./leader-election.ts";
import { holdsLead, nextOperatorState, type OperatorEvent, type OperatorState } from "./lifecycle.ts";
import { createOperatorMetrics, queueObservers } from "./metrics.ts";
import { metricsServer } from "./metrics-server.ts";
import { RolloutController } from "./rollout-controller.ts";
import { ClusterShards } from "./sharding.ts";

export { DEFAULT_SIDECAR_IMAGE, parseOperatorConfig, type OperatorConfig } from "./config.ts";
export { DELIVERY_FINALIZER } from "@svc/core";

export interface OperatorOptions extends OperatorConfig {
  /** Overrides KUBECONFIG / in-cluster discovery. */
  kubeConfig?: KubeConfig;
  log?: Logger;
  /** Overrides of the cluster registry's timings (tests). */
  registry?: Partial<Omit<ClusterRegistryOptions, "hubKubeConfig" | "logger">>;
}

export interface RunningOperator {
  /** http://host:port of /metrics, /healthz and /readyz. */
  metricsUrl: string;
  /** Resolves once this replica leads (sharding: its first round; free clusters follow once it has seen the others) and every cluster's keys are queued. */
  ready: Promise<void>;
  /** Resolves when nothing is queued, in flight or waiting for a retry, and no cluster status is being written (tests, benchmarks). */
  idle: () => Promise<void>;
  /** Writes sent to API servers since start (applies, creates, deletes). */
  writes: () => number;
  /** Resolves when the operator stopped on its own (leadership lost). */
  stopped: Promise<void>;
  close: () => Promise<void>;
}

function loadKubeConfig(path: string | undefined): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (path === undefined) kubeConfig.loadFromCluster();
  else kubeConfig.loadFromFile(path);
  return kubeConfig;
}

export async function runOperator(options: OperatorOptions): Promise<RunningOperator> {
  const log = options.log ?? pino({ level: options.logLevel, base: { component: "operator" } });
  const hubKubeConfig = options.kubeConfig ?? loadKubeConfig(options.kubeconfigPath);
  const metrics = createOperatorMetrics(
    () => ({ depth: clusters.depth, delayed: clusters.delayed }),
    () =>
      (registry?.list() ?? []).flatMap((cluster) =>
        (
          [
            ["FeatureFlag", cluster.flags],
            ["Deployment", cluster.deployments],
            ["StatefulSet", cluster.statefulSets],
            ["DaemonSet", cluster.daemonSets],
            ["Namespace", cluster.namespaces],
          ] as const
        ).map(([kind, cache]) => ({ cluster: cluster.id, kind, objects: cache.list().length })),
      ),
    () => registry?.registeredIds().length ?? 0,
  );
  const now = () => new Date();
  let writes = 0;
  const queueOptions: ClusterQueuesOptions["queue"] = {
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
  };
  const clusters = new ClusterQueues({
    concurrency: options.concurrency,
    queue: queueOptions,
    writer: (cluster) =>
      new ObjectWriter(cluster.kubeConfig, {
        timeoutMs: options.requestTimeoutMs,
        onWrite: (verb, ref) => {
          writes++;
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
      const connection = registry?.get(id)?.connection;
      return connection === undefined ? options.resyncMs : clusterResyncMs(connection.spec.resyncPeriod);
    },
    onRescan: (id) => {
      statusReporter?.report(id, { rescan: true });
    },
  });

  const server = metricsServer(
    async () => metrics.registry.metrics(),
    metrics.registry.contentType,
    () => holdsLead(state),
  );
  server.listen(options.metricsPort, options.metricsHost);
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;

  const hubWriter = new ObjectWriter(hubKubeConfig, {
    timeoutMs: options.requestTimeoutMs,
    onWrite: () => {
      writes++;
    },
  });
  /** Ends an unfinished start-up (the registry's start at once). */
  const startUp = new AbortController();
  /** Ends leader election, handing the Lease back. */
  const stopping = new AbortController();
  let state: OperatorState = "standby";
  const transition = (event: OperatorEvent) => {
    state = nextOperatorState(state, event);
    metrics.leader.set(holdsLead(state) ? 1 : 0);
  };
  let registry: ClusterRegistry | undefined;
  let statusReporter: ClusterStatusReporter | undefined;
  let markStopped: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (markStopped = resolve));

  /** With sharding, the clusters whose Lease this replica holds: the registry connects only those. */
  const shards = options.sharding
    ? new ClusterShards({
        writer: hubWriter,
        namespace: options.systemNamespace,
        identity: options.identity,
        leaseDurationMs: options.leaseDurationMs,
        now,
        logger: log,
        registered: () => registry?.registeredIds() ?? [],
        onHeldChange: () => {
          metrics.clustersHeld.set(shards?.heldCount ?? 0);
          registry?.refresh();
          syncRollouts();
        },
        stopCluster: (id) => clusters.disconnect(id),
        pauseCluster: (id) => clusters.pause(id),
        resumeCluster: (id) => {
          const cluster = registry?.get(id);
          if (cluster !== undefined && holdsLead(state)) clusters.resume(cluster);
          statusReporter?.report(id);
        },
      })
    : undefined;
  const mayAct = (id: string) => shards?.holds(id) ?? true;
  let sharding: Promise<void> | undefined;

  /** FlagRollouts are driven by the replica that acts for the hub (the local cluster). */
  let rollouts: RolloutController | undefined;
  let rolloutsClosing: Promise<void> = Promise.resolve();
  const syncRollouts = () => {
    const drives = state === "leading" && mayAct(options.clusterId);
    if (drives && rollouts === undefined) {
      rollouts = new RolloutController({
        hubKubeConfig,
        connections: () => registry?.connections() ?? [],
        hubWriter,
        systemNamespace: options.systemNamespace,
        localClusterId: options.clusterId,
        requestTimeoutMs: options.requestTimeoutMs,
        logger: log,
        now,
        onWrite: () => {
          writes++;
        },
      });
      rollouts.start();
    } else if (!drives && rollouts !== undefined) {
      const stopping = rollouts;
      rollouts = undefined;
      rolloutsClosing = rolloutsClosing.then(() => stopping.close());
    }
  };

  const connect = (cluster: ConnectedCluster) => {
    // A registry event that arrives while closing, or for a cluster handed over, connects nothing.
    if (holdsLead(state) && mayAct(cluster.id)) clusters.connect(cluster);
  };

  /**
   * Connects every cluster and queues its keys. After each await it stops when the operator is
   * no longer starting (closed, or the Lease lost meanwhile): what it made so far is left where
   * close() stops it, and nothing more is started.
   */
  const startActing = async () => {
    const stillStarting = () => {
      if (state !== "starting") throw new Error("the operator closed before it was ready");
    };
    const installed = await ensureHubCrds(hubWriter, hubKubeConfig);
    stillStarting();
    if (installed) log.info("svc's CRDs installed in the hub");
    // Assigned before the check: close() closes it.
    registry = await ClusterRegistry.start(
      {
        hubKubeConfig,
        localClusterId: options.clusterId,
        systemNamespace: options.systemNamespace,
        requestTimeoutMs: options.requestTimeoutMs,
        logger: log,
        // A cluster whose Lease renewal came late keeps its caches while its writes pause.
        connects: (id) => shards?.caches(id) ?? true,
        ...options.registry,
      },
      startUp.signal,
    );
    stillStarting();
    const started = registry;
    statusReporter = new ClusterStatusReporter({
      registry: started,
      hubWriter,
      hubKubeConfig,
      systemNamespace: options.systemNamespace,
      localClusterId: options.clusterId,
      reportsFor: mayAct,
      metrics,
      logger: log,
      now,
    });
    await statusReporter.registerLocalCluster();
    stillStarting();
    if (shards !== undefined) {
      // Its first round before it reports ready: the Leases that still name it renewed (free
      // clusters wait until it has seen the replicas starting with it); they connect as taken.
      let firstRound: () => void = () => undefined;
      const tookClusters = new Promise<void>((resolve) => (firstRound = resolve));
      sharding = shards.run(stopping.signal, firstRound);
      await Promise.race([tookClusters, sharding]);
      stillStarting();
    }
    for (const cluster of started.list()) connect(cluster);
    started.onChange((event) => {
      const cluster = started.get(event.id);
      if (event.type === "removed" || cluster === undefined) void clusters.disconnect(event.id);
      else if (event.type === "added" || event.type === "changed") connect(cluster);
      // Back to ready after syncing or an outage: the caches may hold changes not yet seen.
      else if (cluster.health().state === "ready") clusters.enqueueAll(event.id);
      statusReporter?.report(event.id);
    });
    statusReporter.reportAll();
    transition("started");
    syncRollouts();
  };

  let markReady: () => void = () => undefined;
  let failReady: (error: unknown) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  let starting: Promise<void> | undefined;
  const lead = () => {
    transition("elected");
    starting = startActing().then(markReady, failReady);
  };
  let close: () => Promise<void> = () => Promise.resolve();
  let electing: Promise<void> | undefined;
  if (options.leaderElection && !options.sharding)
    electing = runLeaderElection({
      writer: hubWriter,
      namespace: options.systemNamespace,
      identity: options.identity,
      leaseDurationMs: options.leaseDurationMs,
      now,
      logger: log,
      signal: stopping.signal,
      onStartedLeading: lead,
      onStoppedLeading: () => {
        transition("leadershipLost");
        void close().then(markStopped);
      },
    });
  // With sharding every replica acts: the cluster Leases decide where.
  else lead();

  let closing: Promise<void> | undefined;
  close = () =>
    (closing ??= (async () => {
      transition("close");
      // An unfinished start-up stops at its next step.
      startUp.abort();
      await starting;
      // Writes in flight finish before the Lease is handed back: never two writers at once.
      syncRollouts();
      await rolloutsClosing;
      await clusters.shutDown();
      await statusReporter?.close();
      stopping.abort();
      await electing;
      // Hands the held clusters' Leases back (their queues are stopped above).
      await sharding;
      await registry?.close();
      await hubWriter.close();
      server.close();
      server.closeAllConnections();
      transition("closed");
      log.info("operator stopped");
    })());

  return {
    metricsUrl: `http://${options.metricsHost === "0.0.0.0" ? "127.0.0.1" : options.metricsHost}:${port}`,
    ready,
    idle: async () => {
      await clusters.whenIdle();
      await rollouts?.whenIdle();
      await statusReporter?.settled();
    },
    writes: () => writes,
    stopped,
    close,
  };
}
