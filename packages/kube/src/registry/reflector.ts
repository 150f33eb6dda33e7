// List, then watch from the list's resourceVersion, forever: client-go's reflector in small.
// Restarts on any error with back-off, lists again on 410 Gone, asks for bookmarks (so a
// restart resumes from a recent resourceVersion instead of relisting), and a watchdog ends a
// watch that has been silent for longer than bookmarks allow.
import { setTimeout as sleep } from "node:timers/promises";
import type { BackoffPolicy } from "../backoff.ts";
import { describeFailure, type Failure, type SourceOutcome } from "./health.ts";
import type { ObjectStore, ObjectWithMeta } from "./informer-cache.ts";
import { restartAfter, type Ending } from "./restart.ts";
import { KubeApiError } from "@svc/kube-wire";
import type { ClusterTransport, WatchEvent } from "./transport.ts";

export interface ReflectorOptions<T extends ObjectWithMeta> {
  /** What is watched, for messages: "list deployments in shop". */
  description: string;
  transport: ClusterTransport;
  /** Collection path, e.g. /apis/apps/v1/namespaces/shop/deployments. */
  path: string;
  /** A fieldSelector for list and watch alike. */
  fieldSelector?: string;
  /** Namespace the path is restricted to (what a relist replaces); undefined for all. */
  namespace: string | undefined;
  store: ObjectStore<T>;
  /** What the cache keeps of each listed or watched object: the kind's transform (kinds.ts). */
  decode: (raw: unknown) => T;
  /** Objects outside this predicate are not cached. */
  keep?: (object: T) => boolean;
  requestTimeoutMs: number;
  /** A watch silent for this long is restarted (bookmarks arrive about once a minute). */
  watchdogMs: number;
  backoff: BackoffPolicy;
  random: () => number;
  /** Called after every change of `outcome()`. */
  onOutcome: () => void;
  logger: { debug(obj: object, msg: string): void };
}

const PAGE_SIZE = 500;
/** client-go asks the server to end each watch after a random 5–10 minutes. */
const MIN_WATCH_SECONDS = 300;

interface ListPage {
  metadata?: { resourceVersion?: string; continue?: string };
  items?: unknown[];
}

export class Reflector<T extends ObjectWithMeta> {
  readonly #options: ReflectorOptions<T>;
  readonly #stopping = new AbortController();
  #running: Promise<void> | undefined;
  #waking: AbortController | undefined;
  #synced = false;
  #failure: Failure | undefined;

  constructor(options: ReflectorOptions<T>) {
    this.#options = options;
  }

  outcome(): SourceOutcome {
    return { synced: this.#synced, failure: this.#failure };
  }

  start(): void {
    this.#running ??= this.#run();
  }

  /** Ends a back-off pause now (the API server is known to be back). */
  retryNow(): void {
    this.#waking?.abort();
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    await this.#running;
  }

  async #run(): Promise<void> {
    const { backoff, random, description, logger, path } = this.#options;
    let resourceVersion: string | undefined;
    let attempt = 0;
    while (!this.#stopped()) {
      let ending: Ending;
      try {
        if (resourceVersion === undefined) {
          resourceVersion = await this.#list();
          attempt = 0; // the API server answers again: a later failure starts a new back-off
        }
        const started = Date.now();
        const watched = await this.#watch(resourceVersion);
        resourceVersion = watched.resourceVersion;
        ending = watched.silent ? { kind: "silent" } : { kind: "closed", durationMs: Date.now() - started };
      } catch (error) {
        if (this.#stopped()) break;
        const failure = error instanceof Gone ? error.failure : describeFailure(error, description);
        if (failure.kind !== "gone") {
          this.#report(failure);
          logger.debug({ watch: path, failure: failure.message }, "list/watch failed");
        }
        ending = { kind: "failed", failure };
      }
      const restart = restartAfter(ending, attempt, backoff, random());
      attempt = restart.attempt;
      if (restart.listAgain) resourceVersion = undefined;
      if (restart.delayMs > 0) await this.#pause(restart.delayMs);
    }
  }

  /** Lists every page and replaces the cache's content in scope; returns the list's resourceVersion. */
  async #list(): Promise<string> {
    const { transport, path, requestTimeoutMs, store, decode, namespace } = this.#options;
    const items: T[] = [];
    let continueToken: string | undefined;
    let resourceVersion: string;
    do {
      const page = (await transport.getJson(
        path,
        { limit: PAGE_SIZE, continue: continueToken, fieldSelector: this.#options.fieldSelector },
        requestTimeoutMs,
        this.#stopping.signal,
      )) as ListPage;
      for (const raw of page.items ?? []) {
        const object = decode(raw);
        if (this.#keep(object)) items.push(object);
      }
      continueToken = page.metadata?.continue || undefined;
      resourceVersion = page.metadata?.resourceVersion ?? "";
    } while (continueToken !== undefined);
    store.replace(items, (ns) => namespace === undefined || ns === namespace);
    this.#synced = true;
    this.#failure = undefined;
    this.#options.onOutcome();
    return resourceVersion;
  }

  /** Watches until the stream ends; returns the last resourceVersion seen, and whether the watchdog ended it. */
  async #watch(from: string): Promise<{ resourceVersion: string; silent: boolean }> {
    const { transport, path, requestTimeoutMs, watchdogMs, random } = this.#options;
    let resourceVersion = from;
    const silent = new AbortController();
    const signal = AbortSignal.any([silent.signal, this.#stopping.signal]);
    let watchdog: NodeJS.Timeout | undefined;
    const feedWatchdog = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        silent.abort(new DOMException(`no event in ${watchdogMs} ms`, "TimeoutError"));
      }, watchdogMs);
    };
    feedWatchdog();
    const query = {
      fieldSelector: this.#options.fieldSelector,
      resourceVersion: from,
      allowWatchBookmarks: true,
      timeoutSeconds: Math.floor(MIN_WATCH_SECONDS * (1 + random())),
    };
    try {
      await transport.watch(path, query, requestTimeoutMs, signal, (event) => {
        feedWatchdog();
        if (this.#failure !== undefined) this.#report(undefined);
        resourceVersion = this.#apply(event) ?? resourceVersion;
      });
      if (this.#failure !== undefined) this.#report(undefined);
    } catch (error) {
      // A silent watch is restarted from where it was, without counting as a failure.
      if (silent.signal.aborted && !this.#stopping.signal.aborted) return { resourceVersion, silent: true };
      throw error;
    } finally {
      clearTimeout(watchdog);
    }
    return { resourceVersion, silent: false };
  }

  /** Applies one event to the cache; returns its resourceVersion. */
  #apply(event: WatchEvent): string | undefined {
    const { store, decode } = this.#options;
    if (event.type === "ERROR") {
      const status = event.object as { code?: number; message?: string; reason?: string };
      const error = new KubeApiError(status.code ?? 500, status.message ?? "watch error", status.reason);
      if (status.code === 410) throw new Gone({ kind: "gone", message: error.message });
      throw error;
    }
    const raw = event.object as ObjectWithMeta;
    const resourceVersion = raw.metadata?.resourceVersion;
    if (event.type === "BOOKMARK") return resourceVersion;
    const object = decode(raw);
    if (event.type === "DELETED" || !this.#keep(object)) store.applyDeleted(object);
    else store.upsert(object);
    return resourceVersion;
  }

  #stopped(): boolean {
    return this.#stopping.signal.aborted;
  }

  #keep(object: T): boolean {
    return this.#options.keep?.(object) ?? true;
  }

  #report(failure: Failure | undefined): void {
    const changed = failure?.message !== this.#failure?.message;
    this.#failure = failure;
    if (changed) this.#options.onOutcome();
  }

  async #pause(ms: number): Promise<void> {
    this.#waking = new AbortController();
    const signal = AbortSignal.any([this.#waking.signal, this.#stopping.signal]);
    await sleep(ms, undefined, { signal }).catch(() => undefined);
    this.#waking = undefined;
  }
}

/** A watch ERROR event with 410: the resourceVersion is too old, list again. */
class Gone extends Error {
  readonly failure: Failure;
  constructor(failure: Failure) {
    super(failure.message);
    this.failure = failure;
  }
}
