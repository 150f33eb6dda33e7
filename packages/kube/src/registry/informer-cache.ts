// The in-memory copy of one kind of object of one cluster, fed by list+watch (reflector.ts) and
// by the writer's own results (write-through), read by the API and the operator.
import { isOlderVersion } from "../resource-version.ts";

export interface CacheEvent<T> {
  type: "upsert" | "delete";
  object: T;
  /** For an upsert: the object it replaced (undefined when the cache did not hold it). */
  previous?: T | undefined;
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
  /**
   * Write-through of a deletion. `deleted` is what the delete call returned when the object
   * lingers (finalizers): its uid and resourceVersion. Every later event of that incarnation is
   * ignored, even a newer one (a finalizer's status write), so the deleted object never comes
   * back; a re-created object (another uid, or a newer version when uids are unknown) does.
   */
  remove(namespace: string, name: string, deleted?: T): void;
  onEvent(listener: (event: CacheEvent<T>) => void): () => void;
}

/** What the cache needs of an object: client-node's models and plain JSON both fit. */
export interface ObjectWithMeta {
  metadata?:
    | {
        name?: string;
        namespace?: string;
        resourceVersion?: string;
        uid?: string;
        deletionTimestamp?: unknown;
      }
    | undefined;
}

/** The incarnation a writer deleted: its uid, and the newest resourceVersion it was seen at. */
interface Tombstone {
  uid: string | undefined;
  resourceVersion: string | undefined;
}

/**
 * Deletions remembered after their DELETED event too, since a writer's own late write-through
 * (a toggle racing the delete) can arrive after it. Bounded: the oldest are forgotten first.
 */
const MAX_TOMBSTONES = 4096;

const ALL = "\u0000all";

/**
 * The list of a namespace without objects: always the same one, so a reader memoising on list
 * identity (the operator's namespace plans) hits for the kinds a namespace does not have.
 */
const EMPTY: readonly never[] = Object.freeze([]);

export class ObjectStore<T extends ObjectWithMeta> implements InformerCache<T> {
  readonly #byNamespace = new Map<string, Map<string, T>>();
  /** Sorted snapshots handed out by list(), dropped when their namespace changes. */
  readonly #snapshots = new Map<string, readonly T[]>();
  /** Objects removed by a writer, by namespace/name (insertion order: oldest first). */
  readonly #tombstones = new Map<string, Tombstone>();
  readonly #listeners = new Set<(event: CacheEvent<T>) => void>();
  readonly #onListenerError: (error: unknown) => void;

  constructor(onListenerError: (error: unknown) => void) {
    this.#onListenerError = onListenerError;
  }

  list(namespace?: string): readonly T[] {
    // Not cached for a namespace without objects: callers pass namespaces from requests.
    if (namespace !== undefined && !this.#byNamespace.has(namespace)) return EMPTY;
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
    const tombstone = this.#tombstones.get(key);
    if (tombstone !== undefined) {
      if (isOfDeletedIncarnation(object, tombstone)) return;
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
    this.#changed(namespace, { type: "upsert", object, previous: current });
  }

  remove(namespace: string, name: string, deleted?: T): void {
    const current = this.get(namespace, name);
    // The delete's answer is the newest version unless the cache somehow holds a newer one.
    const cached = current?.metadata;
    const answered = deleted?.metadata;
    const newest = isOlderVersion(answered?.resourceVersion, cached?.resourceVersion)
      ? cached
      : (answered ?? cached);
    const key = `${namespace}/${name}`;
    this.#tombstones.delete(key);
    this.#tombstones.set(key, {
      uid: answered?.uid ?? cached?.uid,
      resourceVersion: newest?.resourceVersion,
    });
    if (this.#tombstones.size > MAX_TOMBSTONES) {
      const oldest = this.#tombstones.keys().next().value;
      if (oldest !== undefined) this.#tombstones.delete(oldest);
    }
    if (current !== undefined) this.#delete(namespace, name, current);
  }

  onEvent(listener: (event: CacheEvent<T>) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A DELETED watch event: the object is gone unless the cache already holds a newer one. */
  applyDeleted(object: T): void {
    const { namespace, name, resourceVersion } = identity(object);
    const current = this.get(namespace, name);
    if (current === undefined || isOlderVersion(resourceVersion, current.metadata?.resourceVersion)) return;
    this.#delete(namespace, name, current);
  }

  /**
   * A fresh list of everything within `inScope` (one namespace, or all): objects it lacks are
   * deleted, the others upserted. A listed object that a writer deleted and whose finalizers
   * still hold it stays out, as its watch events do.
   */
  replace(items: readonly T[], inScope: (namespace: string) => boolean): void {
    const listed = new Set(items.map((item) => `${identity(item).namespace}/${identity(item).name}`));
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

/**
 * Whether an object is the incarnation a writer deleted. By uid where both are known (then even
 * a newer event of it is ignored); otherwise one being deleted, or one not newer than the
 * deletion, is; a newer one without deletionTimestamp is a re-creation.
 */
function isOfDeletedIncarnation(object: ObjectWithMeta, tombstone: Tombstone): boolean {
  const uid = object.metadata?.uid;
  if (uid !== undefined && tombstone.uid !== undefined) return uid === tombstone.uid;
  if (object.metadata?.deletionTimestamp !== undefined) return true;
  const version = object.metadata?.resourceVersion;
  return version === tombstone.resourceVersion || isOlderVersion(version, tombstone.resourceVersion);
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
