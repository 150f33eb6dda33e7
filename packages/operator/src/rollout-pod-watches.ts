// The health gate's wake-up: a watch of the pods of each workload a wave in flight changed (by
// the workload's selector, never every pod of a cluster). An event only queues the plan's next
// round, which reads what it decides on afresh; the round's own period stays the fallback.
import type { ObjectWriter } from "@svc/kube";

/** Where the pods of one workload are: a cluster, a namespace and the workload's selector. */
export interface PodScope {
  clusterId: string;
  /** The cluster's writer: the watch goes over its connection pool, as its reads do. */
  writer: ObjectWriter;
  namespace: string;
  /** `a=b,c=d`, from the workload's matchLabels. */
  labelSelector: string;
}

const scopeKey = (plan: string, scope: PodScope) =>
  `${plan}\u0000${scope.clusterId}\u0000${scope.namespace}\u0000${scope.labelSelector}`;

export class PodWatches {
  readonly #wake: (plan: string) => void;
  readonly #watches = new Map<string, { stop: () => void; ended: boolean }>();

  constructor(wake: (plan: string) => void) {
    this.#wake = wake;
  }

  /** Watches exactly these scopes for a plan (none: the plan has no wave in flight). */
  watch(plan: string, scopes: readonly PodScope[]): void {
    const wanted = new Map(scopes.map((scope) => [scopeKey(plan, scope), scope]));
    for (const [key, watch] of this.#watches)
      if (key.startsWith(`${plan}\u0000`) && (!wanted.has(key) || watch.ended)) {
        watch.stop();
        this.#watches.delete(key);
      }
    for (const [key, scope] of wanted) if (!this.#watches.has(key)) this.#start(plan, key, scope);
  }

  stopAll(): void {
    for (const watch of this.#watches.values()) watch.stop();
    this.#watches.clear();
  }

  get size(): number {
    return this.#watches.size;
  }

  #start(plan: string, key: string, scope: PodScope): void {
    const stream = new AbortController();
    const entry = {
      stop: () => {
        stream.abort();
      },
      ended: false,
    };
    // An ended watch (an error, the server's timeout) is started again by the plan's next round.
    const end = () => {
      entry.ended = true;
    };
    scope.writer
      .watch("v1", "Pod", scope.namespace, scope.labelSelector, stream.signal, (event) => {
        if (event.type !== "BOOKMARK") this.#wake(plan);
      })
      .then(end, end);
    this.#watches.set(key, entry);
  }
}
