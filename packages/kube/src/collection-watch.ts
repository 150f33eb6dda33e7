// One collection of the hub watched into a cache, for a process that reacts to its objects (the
// operator's FlagRollouts): the registry's reflector and store, outside the registry.
import type { KubeConfig } from "@kubernetes/client-node";
import { DEFAULT_BACKOFF } from "./backoff.ts";
import { ObjectStore, type InformerCache, type ObjectWithMeta } from "./registry/informer-cache.ts";
import { Reflector } from "./registry/reflector.ts";
import { ClusterTransport } from "./registry/transport.ts";
import { silentLogger, type Logger } from "./registry/types.ts";

export interface CollectionWatchOptions {
  kubeConfig: KubeConfig;
  /** Collection path, e.g. /apis/svc.io/v1alpha1/namespaces/svc-system/flagrollouts. */
  path: string;
  namespace: string;
  /** For messages: "list FlagRollouts in svc-system". */
  description: string;
  requestTimeoutMs: number;
  logger?: Logger;
}

export class CollectionWatch<T extends ObjectWithMeta> {
  readonly #store: ObjectStore<T>;
  readonly #reflector: Reflector<T>;
  readonly #transport: ClusterTransport;

  constructor(options: CollectionWatchOptions) {
    const logger = options.logger ?? silentLogger;
    this.#transport = new ClusterTransport(options.kubeConfig);
    this.#store = new ObjectStore<T>((error) => {
      logger.error({ err: error }, `${options.description}: listener failed`);
    });
    this.#reflector = new Reflector<T>({
      description: options.description,
      transport: this.#transport,
      path: options.path,
      namespace: options.namespace,
      store: this.#store,
      decode: (raw) => raw as T,
      requestTimeoutMs: options.requestTimeoutMs,
      watchdogMs: 120_000,
      backoff: DEFAULT_BACKOFF,
      random: Math.random,
      onOutcome: () => undefined,
      logger,
    });
  }

  get cache(): InformerCache<T> {
    return this.#store;
  }

  synced(): boolean {
    return this.#reflector.outcome().synced;
  }

  start(): void {
    this.#reflector.start();
  }

  async stop(): Promise<void> {
    await this.#reflector.stop();
    await this.#transport.close();
  }
}
