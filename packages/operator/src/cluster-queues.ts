// One work queue, its workers and its writer per connected cluster, made on connect and shut
// down on disconnect: a cluster that answers slowly holds only its own workers, never those of
// the others (client-go gives each controller its own queue for the same reason). Each cluster
// is also rescanned on a timer of its own, at its ClusterConnection's resyncPeriod.
import {
  ObjectWriter,
  parseWorkQueueKey,
  WorkQueue,
  type ConnectedCluster,
  type QueuePriority,
  type WorkQueueOptions,
} from "@svc/kube";
import type { ClusterController } from "./cluster-controller.ts";

export interface ClusterQueuesOptions {
  /** Workers of each cluster's queue. */
  concurrency: number;
  /** The queue's observers (metrics, logs), shared by every cluster's queue. */
  queue: Omit<WorkQueueOptions, "reconcile" | "concurrency">;
  writer: (cluster: ConnectedCluster) => ObjectWriter;
  controller: (
    cluster: ConnectedCluster,
    writer: ObjectWriter,
    enqueue: (key: string, delayMs: number, priority: QueuePriority) => void,
  ) => ClusterController;
  /** The cluster's rescan period, read again at each rescan (it may change without a reconnect). */
  rescanMs: (id: string) => number;
  /** Told of each rescan, after every key of the cluster was queued. */
  onRescan: (id: string) => void;
}

interface ClusterWork {
  /** The connection it was made for: a paused queue of an older one is connected anew on resume. */
  cluster: ConnectedCluster;
  controller: ClusterController;
  writer: ObjectWriter;
  queue: WorkQueue;
  rescan: NodeJS.Timeout | undefined;
}

export class ClusterQueues {
  readonly #options: ClusterQueuesOptions;
  readonly #clusters = new Map<string, ClusterWork>();
  /** Queues of replaced or removed clusters, until their reconciles in flight are done. */
  readonly #draining = new Set<Promise<void>>();

  constructor(options: ClusterQueuesOptions) {
    this.#options = options;
  }

  /** Keys ready to be processed, in every cluster's queue. */
  get depth(): number {
    return this.#sum((queue) => queue.depth);
  }

  /** Keys waiting for a back-off or a requested delay, in every cluster's queue. */
  get delayed(): number {
    return this.#sum((queue) => queue.delayed);
  }

  /** Starts (or, when connected already, restarts on the new connection) the cluster's controller, queue and rescans. */
  connect(cluster: ConnectedCluster): void {
    // The old connection's reconciles are canceled; every key is queued again below.
    void this.disconnect(cluster.id);
    const writer = this.#options.writer(cluster);
    const work: ClusterWork = {
      cluster,
      writer,
      queue: new WorkQueue({
        ...this.#options.queue,
        concurrency: this.#options.concurrency,
        reconcile: (key, signal) => work.controller.reconcile(parseWorkQueueKey(key), signal),
      }),
      controller: this.#options.controller(cluster, writer, (key, delayMs, priority) => {
        work.queue.addAfter(key, delayMs, priority);
      }),
      rescan: undefined,
    };
    this.#clusters.set(cluster.id, work);
    work.controller.start();
    work.controller.enqueueAll();
    this.#scheduleRescan(cluster.id, work);
  }

  /**
   * Stops the cluster's controller, rescans and queue (its keys are dropped, those in flight
   * canceled) and closes its connections once nothing uses them. Resolves then (at once when
   * the cluster was not connected): a sharded replica hands a cluster's Lease back only after.
   */
  disconnect(id: string): Promise<void> {
    const work = this.#clusters.get(id);
    if (work === undefined) return Promise.resolve();
    this.#clusters.delete(id);
    clearTimeout(work.rescan);
    work.controller.stop();
    const draining = work.queue.shutDown().then(() => work.writer.close());
    this.#draining.add(draining);
    void draining.finally(() => this.#draining.delete(draining));
    return draining;
  }

  /**
   * Stops the cluster's writes and keeps everything else (its caches, its keys, those in flight
   * canceled and queued again): a sharded replica whose Lease renewal came late, until it is
   * renewed. Resolves once its writes in flight are done.
   */
  pause(id: string): Promise<void> {
    return this.#clusters.get(id)?.queue.pause() ?? Promise.resolve();
  }

  /**
   * Writes again what the cluster's queue holds (its Lease was renewed after a pause), or
   * connects it when the queue was made for an older connection or none.
   */
  resume(cluster: ConnectedCluster): void {
    const work = this.#clusters.get(cluster.id);
    if (work?.cluster === cluster) work.queue.resume();
    else this.connect(cluster);
  }

  /** Queues every key of the cluster (after an outage or sync: the caches may hold changes not yet seen). */
  enqueueAll(id: string): void {
    this.#clusters.get(id)?.controller.enqueueAll();
  }

  /** Resolves when no cluster's queue has a key queued, in flight or waiting. */
  async whenIdle(): Promise<void> {
    const queues = () => [...this.#clusters.values()].map((work) => work.queue);
    while (queues().some((queue) => queue.depth + queue.inFlight + queue.delayed > 0))
      await Promise.all(queues().map((queue) => queue.whenIdle()));
  }

  /** Disconnects every cluster and resolves once their reconciles in flight are done and their connections closed. */
  async shutDown(): Promise<void> {
    for (const id of [...this.#clusters.keys()]) void this.disconnect(id);
    while (this.#draining.size > 0) await Promise.all([...this.#draining]);
  }

  #scheduleRescan(id: string, work: ClusterWork): void {
    work.rescan = setTimeout(() => {
      if (this.#clusters.get(id) !== work) return;
      work.controller.enqueueAll();
      this.#options.onRescan(id);
      this.#scheduleRescan(id, work);
    }, this.#options.rescanMs(id));
    work.rescan.unref();
  }

  #sum(count: (queue: WorkQueue) => number): number {
    let total = 0;
    for (const work of this.#clusters.values()) total += count(work.queue);
    return total;
  }
}
