// A keyed work queue with client-go's semantics (util/workqueue): a key waits in the queue at
// most once; a key is never processed by two workers at once; a key added while it is being
// processed is queued again when that finishes; a failed key is retried after a per-key
// exponential back-off, forgotten on success; a TerminalError is not retried. Each reconcile gets
// an AbortSignal that ends when the queue shuts down or pauses. A paused queue (a sharded
// replica that could not renew a cluster's Lease in time) starts no key and cancels those in
// flight, which wait in the queue with every key added meanwhile until it resumes. Keys have a
// priority, as controller-runtime's priority queue: what a watch event queues ("normal") goes
// before what a start-up, reconnect or resync queues for everything ("low"), so a change made
// while the operator catches up with a large cluster is not queued behind all of it. Keys are
// `cluster/namespace/kind/name` (workQueueKey). Time comes from an injected clock so tests
// drive it.
import { backoffDelay, type BackoffPolicy } from "./backoff.ts";

/** What a reconcile asks for besides success: to be run again after a while (controller-runtime's Result). */
export interface ReconcileResult {
  requeueAfterMs?: number | undefined;
}

/**
 * What retrying cannot fix (controller-runtime's reconcile.TerminalError): an object the API
 * server refuses as invalid. The key is not retried; the next change of what it reads (an
 * event) queues it again.
 */
export class TerminalError extends Error {
  override name = "TerminalError";
}

/** "low": queued for everything at once (start-up, a cluster ready again, a resync), not for a change. */
export type QueuePriority = "normal" | "low";

/** How a reconcile ended: "canceled" when it failed after the queue's signal was aborted. */
export type ReconcileOutcome = "success" | "error" | "terminal" | "canceled";

export interface QueueClock {
  now(): number;
  /** Runs `run` after `ms`; the returned function cancels it. */
  after(ms: number, run: () => void): () => void;
}

export const systemClock: QueueClock = {
  now: () => Date.now(),
  after: (ms, run) => {
    const timer = setTimeout(run, ms);
    timer.unref();
    return () => {
      clearTimeout(timer);
    };
  },
};

/** client-go's default per-item limiter: 5 ms doubling to 1000 s; capped here at 5 min, no jitter. */
export const DEFAULT_RETRY_BACKOFF: BackoffPolicy = { initialMs: 5, maxMs: 300_000, factor: 2, jitter: 0 };

export interface WorkQueueOptions {
  /**
   * Processes one key; throws to be retried with back-off (a TerminalError: not retried).
   * `signal` is aborted when the queue shuts down: pass it to the writes.
   */
  reconcile: (key: string, signal: AbortSignal) => Promise<ReconcileResult | undefined>;
  /** Keys processed at once. */
  concurrency: number;
  retryBackoff?: BackoffPolicy;
  clock?: QueueClock;
  random?: () => number;
  /** Told of each failure to be retried, with the retry number (0 for the first) and the delay before it. */
  onError?: (key: string, error: unknown, retry: number, delayMs: number) => void;
  /** Told of each TerminalError (the key is not retried). */
  onTerminal?: (key: string, error: TerminalError) => void;
  /** Told of each key that needs processing again (an add of a key already waiting is none). */
  onAdd?: (key: string) => void;
  /** Told of each reconcile starting, with how long its key waited since it was added. */
  onStart?: (key: string, queuedMs: number) => void;
  /** Told of each finished reconcile, with how long it ran. */
  onDone?: (key: string, outcome: ReconcileOutcome, workMs: number) => void;
}

export interface WorkQueueKey {
  cluster: string;
  namespace: string;
  kind: string;
  name: string;
}

/** `cluster/namespace/kind/name`; none of the parts can hold a slash (DNS names and kinds). */
export function workQueueKey(key: WorkQueueKey): string {
  return `${key.cluster}/${key.namespace}/${key.kind}/${key.name}`;
}

export function parseWorkQueueKey(key: string): WorkQueueKey {
  const [cluster = "", namespace = "", kind = "", name = ""] = key.split("/");
  return { cluster, namespace, kind, name };
}

type Observer = "onError" | "onTerminal" | "onAdd" | "onStart" | "onDone";

export class WorkQueue {
  readonly #options: Required<Omit<WorkQueueOptions, Observer>> & Pick<WorkQueueOptions, Observer>;
  /** Keys ready to be processed, one FIFO per priority (a Set keeps insertion order). */
  readonly #ready: Record<QueuePriority, Set<string>> = { normal: new Set(), low: new Set() };
  /** The priority a key added while it was processed goes back in with. */
  readonly #requeuePriority = new Map<string, QueuePriority>();
  /** Keys that need processing (in the queue, or added while being processed). */
  readonly #dirty = new Set<string>();
  /** When each dirty key was added (client-go's addTimes), for its queue latency. */
  readonly #addedAt = new Map<string, number>();
  readonly #processing = new Set<string>();
  /** Keys waiting for a delay, with when they are due and how to cancel the timer. */
  readonly #waiting = new Map<string, { dueAt: number; cancel: () => void }>();
  readonly #failures = new Map<string, number>();
  #workers = 0;
  #shuttingDown = false;
  #paused = false;
  /** Aborted by shutDown and pause: reconciles in flight stop their writes. A new one on resume. */
  #stopping = new AbortController();
  #idleWaiters: (() => void)[] = [];
  /** Told when the last worker stops (a pause waits for the keys in flight). */
  #stoppedWaiters: (() => void)[] = [];

  constructor(options: WorkQueueOptions) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1)
      throw new RangeError("concurrency must be a positive integer");
    this.#options = {
      retryBackoff: DEFAULT_RETRY_BACKOFF,
      clock: systemClock,
      random: Math.random,
      ...options,
    };
  }

  /** Keys ready to be processed (not those in flight or waiting for a delay). */
  get depth(): number {
    return this.#ready.normal.size + this.#ready.low.size;
  }

  get inFlight(): number {
    return this.#processing.size;
  }

  /** Keys waiting for a back-off or a requested delay. */
  get delayed(): number {
    return this.#waiting.size;
  }

  /** Queues the key; one already waiting at low priority moves up when added at normal. */
  add(key: string, priority: QueuePriority = "normal"): void {
    if (this.#shuttingDown) return;
    if (this.#dirty.has(key)) {
      if (priority === "normal" && this.#ready.low.delete(key)) this.#ready.normal.add(key);
      if (priority === "normal" && this.#processing.has(key)) this.#requeuePriority.set(key, priority);
      return;
    }
    this.#dirty.add(key);
    this.#addedAt.set(key, this.#options.clock.now());
    this.#options.onAdd?.(key);
    if (this.#processing.has(key)) {
      this.#requeuePriority.set(key, priority);
      return;
    }
    this.#ready[priority].add(key);
    this.#pump();
  }

  /** Adds the key after `delayMs`; an earlier pending delay of the same key wins. */
  addAfter(key: string, delayMs: number, priority: QueuePriority = "normal"): void {
    if (this.#shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key, priority);
      return;
    }
    const { clock } = this.#options;
    const dueAt = clock.now() + delayMs;
    const pending = this.#waiting.get(key);
    if (pending !== undefined) {
      if (pending.dueAt <= dueAt) return;
      pending.cancel();
    }
    const cancel = clock.after(delayMs, () => {
      this.#waiting.delete(key);
      this.add(key, priority);
    });
    this.#waiting.set(key, { dueAt, cancel });
  }

  /** Resolves when nothing is queued, in flight or waiting (tests and benchmarks). */
  whenIdle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Takes no new keys, drops delayed ones, aborts the signal of the keys in flight, and
   * resolves when they are done.
   */
  async shutDown(): Promise<void> {
    this.#shuttingDown = true;
    this.#stopping.abort(new Error("the work queue shut down"));
    for (const { cancel } of this.#waiting.values()) cancel();
    this.#waiting.clear();
    this.#ready.normal.clear();
    this.#ready.low.clear();
    this.#requeuePriority.clear();
    this.#dirty.clear();
    this.#addedAt.clear();
    await this.whenIdle();
  }

  /**
   * Starts no key until resume(); aborts the signal of the keys in flight, which are queued
   * again, and resolves when they are done (from then on nothing of this queue writes) or it
   * resumed meanwhile.
   */
  async pause(): Promise<void> {
    if (this.#shuttingDown) return;
    this.#paused = true;
    this.#stopping.abort(new Error("the work queue paused"));
    if (this.#workers > 0) await new Promise<void>((resolve) => this.#stoppedWaiters.push(resolve));
  }

  /** Processes the queued keys again, the canceled ones among them. */
  resume(): void {
    if (this.#shuttingDown || !this.#paused) return;
    this.#paused = false;
    this.#stopping = new AbortController();
    for (const resolve of this.#stoppedWaiters.splice(0)) resolve();
    this.#pump();
  }

  #isIdle(): boolean {
    return this.depth === 0 && this.#processing.size === 0 && this.#waiting.size === 0;
  }

  #pump(): void {
    while (!this.#paused && this.#workers < this.#options.concurrency && this.depth > 0) {
      this.#workers++;
      void this.#work();
    }
  }

  async #work(): Promise<void> {
    for (let key = this.#next(); key !== undefined; key = this.#next()) {
      await this.#process(key);
    }
    this.#workers--;
    if (this.#workers === 0) for (const resolve of this.#stoppedWaiters.splice(0)) resolve();
    if (this.#isIdle()) for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }

  #next(): string | undefined {
    if (this.#paused) return undefined;
    const ready = this.#ready.normal.size > 0 ? this.#ready.normal : this.#ready.low;
    const key = ready.values().next().value;
    if (key === undefined) return undefined;
    ready.delete(key);
    this.#processing.add(key);
    this.#dirty.delete(key);
    const { clock, onStart } = this.#options;
    const now = clock.now();
    onStart?.(key, now - (this.#addedAt.get(key) ?? now));
    this.#addedAt.delete(key);
    return key;
  }

  async #process(key: string): Promise<void> {
    const { reconcile, retryBackoff, random, clock, onError, onTerminal } = this.#options;
    const { signal } = this.#stopping;
    const startedAt = clock.now();
    const onDone = (outcome: ReconcileOutcome) => {
      this.#options.onDone?.(key, outcome, clock.now() - startedAt);
    };
    try {
      const result = await reconcile(key, signal);
      this.#failures.delete(key);
      onDone("success");
      this.#done(key);
      if (result?.requeueAfterMs !== undefined) this.addAfter(key, result.requeueAfterMs);
    } catch (error) {
      if (signal.aborted && !this.#shuttingDown) {
        // Canceled by pause: run again on resume, as it was never done.
        onDone("canceled");
        this.#dirty.add(key);
        this.#addedAt.set(key, clock.now());
        this.#done(key);
        return;
      }
      if (signal.aborted || error instanceof TerminalError) {
        this.#failures.delete(key);
        if (!signal.aborted) onTerminal?.(key, error as TerminalError);
        onDone(signal.aborted ? "canceled" : "terminal");
        this.#done(key);
        return;
      }
      const retry = this.#failures.get(key) ?? 0;
      this.#failures.set(key, retry + 1);
      const delayMs = backoffDelay(retryBackoff, retry, random());
      onError?.(key, error, retry, delayMs);
      onDone("error");
      this.#done(key);
      this.addAfter(key, delayMs);
    }
  }

  /** client-go's Done: a key added while it was processed goes back in the queue. */
  #done(key: string): void {
    this.#processing.delete(key);
    const priority = this.#requeuePriority.get(key) ?? "normal";
    this.#requeuePriority.delete(key);
    if (this.#dirty.has(key)) {
      this.#ready[priority].add(key);
      this.#pump();
    }
  }
}
