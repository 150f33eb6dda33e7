// Drives FlagRollouts (docs/safe-changes.md): a thin shell around core's decidePlan. Each round
// reads the plan's clusters, records the decided status (resourceVersion-checked) before it
// makes the decided writes, then records Events. Run by the replica that acts for the hub.
import type { KubeConfig } from "@kubernetes/client-node";
import {
  API_GROUP_VERSION,
  blockingPlan,
  canonicalJson,
  clustersToObserve,
  decidePlan,
  FLAG_ROLLOUT,
  isFinishedPlan,
  metaTime,
  planClusters,
  type ClusterConnectionResource,
  type FlagRolloutResource,
  type PlanEvent,
} from "@svc/core";
import { CollectionWatch, KubeApiError, WorkQueue, type Logger, type ObjectWriter } from "@svc/kube";
import { RolloutClusters, type ClusterRead } from "./rollout-clusters.ts";
import { PodWatches } from "./rollout-pod-watches.ts";

export interface RolloutControllerOptions {
  hubKubeConfig: KubeConfig;
  /** The registered clusters (the cluster registry's watch of ClusterConnections). */
  connections: () => readonly ClusterConnectionResource[];
  hubWriter: ObjectWriter;
  systemNamespace: string;
  localClusterId: string;
  requestTimeoutMs: number;
  logger: Logger;
  now: () => Date;
  onWrite: () => void;
}

/** Plans are few and each round waits on its clusters: a few at once. */
const CONCURRENCY = 4;

export class RolloutController {
  readonly #options: RolloutControllerOptions;
  readonly #watch: CollectionWatch<FlagRolloutResource>;
  readonly #queue: WorkQueue;
  readonly #clusters: RolloutClusters;
  readonly #pods: PodWatches;
  #eventSequence = 0;

  constructor(options: RolloutControllerOptions) {
    this.#options = options;
    const { systemNamespace, logger } = options;
    this.#watch = new CollectionWatch<FlagRolloutResource>({
      kubeConfig: options.hubKubeConfig,
      path: `/apis/${API_GROUP_VERSION}/namespaces/${systemNamespace}/${FLAG_ROLLOUT.plural}`,
      namespace: systemNamespace,
      description: `list FlagRollouts in ${systemNamespace}`,
      requestTimeoutMs: options.requestTimeoutMs,
      logger,
    });
    this.#clusters = new RolloutClusters({
      hubWriter: options.hubWriter,
      systemNamespace,
      localClusterId: options.localClusterId,
      requestTimeoutMs: options.requestTimeoutMs,
      onWrite: options.onWrite,
    });
    this.#queue = new WorkQueue({
      concurrency: CONCURRENCY,
      reconcile: (name, signal) => this.#reconcile(name, signal),
      onError: (name, error, retry, delayMs) => {
        const conflict = error instanceof KubeApiError && error.status === 409;
        logger[conflict && retry < 3 ? "debug" : "warn"](
          { rollout: name, err: error, retry, delayMs },
          "plan round failed; retrying",
        );
      },
    });
    this.#watch.cache.onEvent(({ object }) => {
      this.#queue.add(object.metadata.name);
    });
    this.#pods = new PodWatches((name) => {
      this.#queue.add(name);
    });
  }

  start(): void {
    this.#watch.start();
  }

  /** Resolves when no round is queued or running (tests). */
  whenIdle(): Promise<void> {
    return this.#queue.whenIdle();
  }

  /** Stops between rounds: a round's status is recorded before its writes, so a next owner resumes it. */
  async close(): Promise<void> {
    await this.#watch.stop();
    await this.#queue.shutDown();
    this.#pods.stopAll();
    await this.#clusters.close();
  }

  async #reconcile(name: string, signal: AbortSignal): Promise<{ requeueAfterMs: number } | undefined> {
    const { systemNamespace, hubWriter, now } = this.#options;
    const plan = this.#watch.cache.get(systemNamespace, name);
    if (plan === undefined || isFinishedPlan(plan.status)) {
      this.#pods.watch(name, []);
      return undefined;
    }
    const connections = this.#options.connections();
    const byId = new Map(connections.map((c) => [c.metadata.name, c]));
    const clusters = planClusters(connections);
    const status = plan.status ?? {};
    const ids = clustersToObserve(plan.spec, status, clusters);
    const reads = new Map<string, ClusterRead>(
      await Promise.all(
        ids.map(async (id): Promise<[string, ClusterRead]> => {
          const connection = byId.get(id);
          if (connection === undefined)
            return [
              id,
              {
                observation: { reachable: false, message: "no longer registered" },
                flag: undefined,
                pods: [],
              },
            ];
          return [id, await this.#clusters.read(connection, plan.spec.flag, signal)];
        }),
      ),
    );
    const decision = decidePlan({
      name: plan.metadata.name,
      spec: plan.spec,
      generation: plan.metadata.generation ?? 0,
      status,
      now: now(),
      clusters,
      observed: new Map([...reads].map(([id, read]) => [id, read.observation])),
      blockedBy: blockingPlan(plan, this.#watch.cache.list(systemNamespace)),
    });
    if (canonicalJson(decision.status) !== canonicalJson(status)) {
      // Recorded first: a restart after this point resumes from it and never applies a wave twice.
      const stored = await hubWriter.patch<FlagRolloutResource>(
        { apiVersion: API_GROUP_VERSION, kind: FLAG_ROLLOUT.kind, metadata: plan.metadata },
        plan.metadata.resourceVersion ?? "",
        [{ op: "add", path: "/status", value: decision.status }],
        { subresource: "status", signal },
      );
      this.#watch.cache.upsert(stored);
    }
    for (const write of decision.writes) {
      const connection = byId.get(write.clusterId);
      const flag = reads.get(write.clusterId)?.flag;
      if (connection === undefined || flag === undefined) continue;
      try {
        await this.#clusters.write(connection, flag, write.target, signal);
      } catch (error) {
        // Edited since it was read: the next round reads it again and decides anew.
        if (!(error instanceof KubeApiError && error.status === 409)) throw error;
        return { requeueAfterMs: 0 };
      }
    }
    for (const event of decision.events) await this.#record(plan, event, signal);
    // The pods of the waves in flight wake the next round as soon as they change.
    const inFlight = new Set(
      (decision.status.waves ?? [])
        .filter((wave) => wave.phase === "Applying" || wave.phase === "Baking")
        .flatMap((wave) => wave.clusters.map((c) => c.id)),
    );
    this.#pods.watch(
      name,
      isFinishedPlan(decision.status)
        ? []
        : [...reads].flatMap(([id, read]) => (inFlight.has(id) ? read.pods : [])),
    );
    return decision.requeueAfterMs === undefined ? undefined : { requeueAfterMs: decision.requeueAfterMs };
  }

  /** An Event on the plan (`kubectl describe flagrollout`); failing to record one fails nothing. */
  async #record(plan: FlagRolloutResource, event: PlanEvent, signal: AbortSignal): Promise<void> {
    const now = this.#options.now();
    const time = metaTime(now);
    const { name, namespace, uid } = plan.metadata;
    const sequence = (this.#eventSequence++ % 4096).toString(16);
    await this.#options.hubWriter
      .create(
        {
          apiVersion: "v1",
          kind: "Event",
          metadata: { name: `${name}.${now.getTime().toString(16)}${sequence}`, namespace },
          involvedObject: { apiVersion: API_GROUP_VERSION, kind: FLAG_ROLLOUT.kind, name, namespace, uid },
          type: event.type,
          reason: event.reason,
          message: event.message,
          source: { component: "svc-operator" },
          firstTimestamp: time,
          lastTimestamp: time,
          count: 1,
        },
        { signal },
      )
      .catch((error: unknown) => {
        this.#options.logger.warn({ rollout: name, err: error }, "event not recorded");
      });
  }
}
