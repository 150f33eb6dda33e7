// The in-memory copy of one kind of object of one cluster, fed by list+watch (reflector.ts) and
// by the writer's own results (write-through), read by the API and the operator.
import { isOlderVersion } from "../resource-version.ts";

export interface CacheEvent<T> {
  type: "upsert" | "delete";
  object: T;
}

export interface InformerCache<T> {
  /** Every object, or those of one namespace, in a stable order (namespace, then name). */
  list(namespace?: string): readonly T[];
  /** One object; namespace "" for cluster-scoped kinds. */
  get(namespace: string, name: string): T | undefined;
  /**
   * Write-through: the writer puts the object its write returned, so its next read sees it. A
   * later, older watch event never overwrites a newer object (resourceVersions are compared
   * numerically, as client-go's mutation cache does).
   */
  upsert(object: T): void;
  /** Write-through of a deletion: later watch events older than the deleted object are ignored. */
  remove(namespace: string, name: string): void;
  onEvent(listener: (event: CacheEvent<T>) => void): () => void;
}

/** What the cache needs of an object: client-node's models and plain JSON both fit. */
export interface ObjectWithMeta {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string } | undefined;
}

const ALL = "\u0000all";

export class ObjectStore<T extends ObjectWithMeta> implements InformerCache<T> {
  readonly #byNamespace = new Map<string, Map<string, T>>();
  /** Sorted snapshots handed out by list(), dropped when their namespace changes. */
  readonly #snapshots = new Map<string, readonly T[]>();
  /** resourceVersion of objects removed by a writer whose DELETED event has not arrived yet. */
  readonly #tombstones = new Map<string, string | undefined>();
  readonly #listeners = new Set<(event: CacheEvent<T>) => void>();
  readonly #onListenerError: (error: unknown) => void;

  constructor(onListenerError: (error: unknown) => void) {
    this.#onListenerError = onListenerError;
  }

  list(namespace?: string): readonly T[] {
    // Not cached for a namespace without objects: callers pass namespaces from requests.
    if (namespace !== undefined && !this.#byNamespace.has(namespace)) return [];
    const key = namespace ?? ALL;
    let snapshot = this.#snapshots.get(key);
    if (snapshot === undefined) {
      snapshot =
        namespace === undefined
          ? this.#sortedAll()
          : sortedByName(this.#byNamespace.get(namespace) ?? new Map<string, T>());
      this.#snapshots.set(key, snapshot);
    }
    return snapshot;
  }

  get(namespace: string, name: string): T | undefined {
    return this.#byNamespace.get(namespace)?.get(name);
  }

  upsert(object: T): void {
    const { namespace, name, resourceVersion } = identity(object);
    const key = `${namespace}/${name}`;
    if (this.#tombstones.has(key)) {
      const removed = this.#tombstones.get(key);
      if (resourceVersion === removed || isOlderVersion(resourceVersion, removed)) return;
      this.#tombstones.delete(key);
    }
    const current = this.get(namespace, name);
    if (current !== undefined) {
      const currentVersion = current.metadata?.resourceVersion;
      if (resourceVersion === currentVersion || isOlderVersion(resourceVersion, currentVersion)) return;
    }
    let names = this.#byNamespace.get(namespace);
    if (names === undefined) {
      names = new Map();
      this.#byNamespace.set(namespace, names);
    }
    names.set(name, object);
    this.#changed(namespace, { type: "upsert", object });
  }

  remove(namespace: string, name: string): void {
    const current = this.get(namespace, name);
    if (current === undefined) return;
    this.#tombstones.set(`${namespace}/${name}`, current.metadata?.resourceVersion);
    this.#delete(namespace, name, current);
  }

  onEvent(listener: (event: CacheEvent<T>) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A DELETED watch event: the object is gone unless the cache already holds a newer one. */
  applyDeleted(object: T): void {
    const { namespace, name, resourceVersion } = identity(object);
    this.#tombstones.delete(`${namespace}/${name}`);
    const current = this.get(namespace, name);
    if (current === undefined || isOlderVersion(resourceVersion, current.metadata?.resourceVersion)) return;
    this.#delete(namespace, name, current);
  }

  /**
   * A fresh list of everything within `inScope` (one namespace, or all): objects it lacks are
   * deleted, the others upserted. Writers' tombstones in scope are settled by the list.
   */
  replace(items: readonly T[], inScope: (namespace: string) => boolean): void {
    const listed = new Set(items.map((item) => `${identity(item).namespace}/${identity(item).name}`));
    for (const key of [...this.#tombstones.keys()]) {
      if (inScope(key.slice(0, key.indexOf("/")))) this.#tombstones.delete(key);
    }
    for (const [namespace, names] of [...this.#byNamespace]) {
      if (!inScope(namespace)) continue;
      for (const [name, object] of [...names]) {
        if (!listed.has(`${namespace}/${name}`)) this.#delete(namespace, name, object);
      }
    }
    for (const item of items) this.upsert(item);
  }

  #delete(namespace: string, name: string, object: T): void {
    const names = this.#byNamespace.get(namespace);
    names?.delete(name);
    if (names?.size === 0) this.#byNamespace.delete(namespace);
    this.#changed(namespace, { type: "delete", object });
  }

  #changed(namespace: string, event: CacheEvent<T>): void {
    this.#snapshots.delete(namespace);
    this.#snapshots.delete(ALL);
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }

  #sortedAll(): readonly T[] {
    const namespaces = [...this.#byNamespace.keys()].sort(byCodePoint);
    return namespaces.flatMap((namespace) => this.list(namespace));
  }
}

function identity(object: ObjectWithMeta): {
  namespace: string;
  name: string;
  resourceVersion: string | undefined;
} {
  const metadata = object.metadata;
  return {
    namespace: metadata?.namespace ?? "",
    name: metadata?.name ?? "",
    resourceVersion: metadata?.resourceVersion,
  };
}

function sortedByName<T extends ObjectWithMeta>(names: Map<string, T>): readonly T[] {
  return [...names.keys()].sort(byCodePoint).map((name) => names.get(name) as T);
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
