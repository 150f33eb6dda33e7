// Flag changes as every API replica's clusters' caches see them, whoever made them (kubectl, a
// GitOps tool, the API itself): turned into webhook events by events.ts and held for a grace
// period before the worker enqueues them, so that the API's own event of a change it made (with
// its actor and before/after) is normally the row kept; the same id makes this one a no-op.
import type { FeatureFlagResource } from "@svc/core";
import type { CacheEvent, ClusterRegistry, ConnectedCluster } from "@svc/kube";
import { isoTime } from "../time.ts";
import { eventsOfObservedChange, type WebhookEvent } from "./events.ts";

/** Bound on the events waiting out their grace period; beyond it new sightings are dropped. */
const PENDING_MAX = 100_000;

interface Watched {
  cluster: ConnectedCluster;
  /** Latched once the cluster's caches were synced: the first list's objects are no changes. */
  synced: boolean;
  unsubscribe: () => void;
}

export class FlagChangeObserver {
  readonly #clusters: ClusterRegistry;
  readonly #graceMs: number;
  readonly #now: () => number;
  readonly #watched = new Map<string, Watched>();
  /** By event id, in order of sighting (so of due time): a second sighting is the same event. */
  readonly #pending = new Map<string, { event: WebhookEvent; dueAt: number }>();
  #stopFollowing: (() => void) | undefined;

  constructor(clusters: ClusterRegistry, graceMs: number, now: () => number) {
    this.#clusters = clusters;
    this.#graceMs = graceMs;
    this.#now = now;
  }

  /** Follows every connected cluster's flag cache, and the clusters connected later. */
  start(): void {
    this.#stopFollowing = this.#clusters.onChange((event) => {
      this.#follow(event.id);
    });
    for (const cluster of this.#clusters.list()) this.#follow(cluster.id);
  }

  stop(): void {
    this.#stopFollowing?.();
    for (const watched of this.#watched.values()) watched.unsubscribe();
    this.#watched.clear();
    this.#pending.clear();
  }

  /** The events whose grace period is over, oldest first; each stays until forget(id). */
  due(now: number): WebhookEvent[] {
    const due: WebhookEvent[] = [];
    for (const { event, dueAt } of this.#pending.values()) {
      if (dueAt > now) break;
      due.push(event);
    }
    return due;
  }

  forget(id: string): void {
    this.#pending.delete(id);
  }

  /** A cluster was added, replaced (new credentials: new caches), removed, or its health moved. */
  #follow(id: string): void {
    const cluster = this.#clusters.get(id);
    const watched = this.#watched.get(id);
    if (watched !== undefined && watched.cluster !== cluster) {
      watched.unsubscribe();
      this.#watched.delete(id);
    }
    if (cluster === undefined) return;
    const current = this.#watched.get(id) ?? this.#watch(cluster);
    // Latched: after an outage, a relist's differences are changes made meanwhile.
    current.synced ||= cluster.health().state === "ready";
  }

  #watch(cluster: ConnectedCluster): Watched {
    const watched: Watched = { cluster, synced: false, unsubscribe: () => undefined };
    watched.unsubscribe = cluster.flags.onEvent((change) => {
      this.#seen(watched, change);
    });
    this.#watched.set(cluster.id, watched);
    return watched;
  }

  #seen(watched: Watched, change: CacheEvent<FeatureFlagResource>): void {
    const at = this.#now();
    const events = eventsOfObservedChange({
      cluster: watched.cluster.id,
      synced: watched.synced,
      type: change.type,
      object: change.object,
      previous: change.previous,
      at: isoTime(at),
    });
    for (const event of events) {
      if (this.#pending.has(event.id) || this.#pending.size >= PENDING_MAX) continue;
      this.#pending.set(event.id, { event, dueAt: at + this.#graceMs });
    }
  }
}
