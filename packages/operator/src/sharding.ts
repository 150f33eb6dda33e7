// Sharding by cluster: every replica is active and acts on the clusters whose Lease it holds.
// Each round (one starts every third of the Lease duration) a replica renews the cluster Leases
// it holds and, beside that, its presence Lease, lists the others' to learn the live replicas,
// computes core's assignClusters from them and the registered clusters, and then, per cluster:
// takes the Lease of a cluster assigned to it (only when free, expired or its own:
// acquireLease), or, for one it holds but no longer owns (a replica joined), stops that
// cluster's work, waits for its writes in flight, and hands the Lease back so the new owner
// takes it at its next round. A Lease it cannot renew within
// two thirds of the duration pauses that cluster's writes at once, before anyone may take it
// over: one writer per cluster at any time, as with the single leader Lease
// (leader-election.ts). Its caches stay: a renewal that succeeds later (the Lease still names
// it) resumes the writes, and only a Lease another replica took stops the cluster. A replica
// whose process stalls (a starved or paused event loop) used to drop its clusters and list them
// again, and the lists' work stalled it past the next deadline (bench/RESULTS.md, "Fleet").
// A starting replica announces itself and takes no free cluster until core's settleReplicas says
// it has seen the replicas starting with it (a round without newcomers, at most a Lease
// duration): replicas started together would otherwise each take and cache the whole fleet at
// first. Meanwhile it renews the Leases that still name it (it restarted under its identity).
// A replica that dies stops renewing: the others run a round just after its Leases expire
// (core's nextRoundDelay), not at their next regular one.
import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import {
  assignClusters,
  isDns1123Subdomain,
  nextRoundDelay,
  settleReplicas,
  type ReplicaSettling,
} from "@svc/core";
import type { Logger, ObjectWriter } from "@svc/kube";
import {
  acquireLease,
  heldUntil,
  isHeld,
  leaseObject,
  releaseLease,
  type LeaseJson,
  type LeaseRef,
} from "./leader-election.ts";

/** The label of every replica's presence Lease, by which replicas list each other. */
export const REPLICA_LEASE_LABEL = "svc.io/operator-replica";

/** The Lease of cluster `id` (a DNS label, so the name is always valid). */
export function clusterLeaseName(id: string): string {
  return `svc-cluster-${id}`;
}

/** A replica's presence Lease: its identity when that makes a valid name, else a stem and a hash of it. */
export function replicaLeaseName(identity: string): string {
  const plain = `svc-operator-replica-${identity}`;
  if (isDns1123Subdomain(plain)) return plain;
  const digest = createHash("sha256").update(identity).digest("hex").slice(0, 8);
  const stem = identity
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .slice(0, 40)
    .replace(/^-+|-+$/g, "");
  return `svc-operator-replica-${stem === "" ? "" : `${stem}-`}${digest}`;
}

export interface ClusterShardsOptions {
  /** Writes to the hub, where the Leases are. */
  writer: ObjectWriter;
  namespace: string;
  identity: string;
  leaseDurationMs: number;
  now: () => Date;
  logger: Logger;
  /** The ids of every registered cluster. */
  registered: () => string[];
  /** Told when the held clusters changed (connect or disconnect them). */
  onHeldChange: () => void;
  /** Stops a cluster's work; resolves once its writes in flight are done. */
  stopCluster: (id: string) => Promise<void>;
  /** Stops a cluster's writes and keeps its caches and queued work; resolves once its writes in flight are done. */
  pauseCluster: (id: string) => Promise<void>;
  /** Writes again to a paused cluster. */
  resumeCluster: (id: string) => void;
}

export class ClusterShards {
  readonly #options: ClusterShardsOptions;
  /** Clusters whose Lease this replica holds, with the time of their last renewal. */
  readonly #held = new Map<string, number>();
  /**
   * Clusters whose renewal came past the renew deadline and that no other replica took (yet):
   * writes paused, caches kept until renewed or taken.
   */
  readonly #lapsed = new Set<string>();
  /** Hand-backs under way: they wait for a cluster's writes in flight, so rounds do not wait for them. */
  readonly #handingBack = new Map<string, Promise<void>>();
  /** Until settled, this replica announces itself and watches the others arrive, but takes no free cluster. */
  #settling: ReplicaSettling | undefined;

  constructor(options: ClusterShardsOptions) {
    this.#options = options;
  }

  /** Whether this replica holds the cluster's Lease (and may act on it). */
  holds(id: string): boolean {
    return this.#held.has(id);
  }

  /** Whether this replica keeps the cluster's caches: it holds its Lease, or the Lease's renewal came late. */
  caches(id: string): boolean {
    return this.#held.has(id) || this.#lapsed.has(id);
  }

  get heldCount(): number {
    return this.#held.size;
  }

  /** Rounds until `signal` aborts; then hands every held Lease back and removes the presence Lease. */
  async run(signal: AbortSignal, onFirstRound: () => void): Promise<void> {
    const { leaseDurationMs } = this.#options;
    // The renew deadline is checked apart from the rounds too: a round slowed by a hub that
    // answers late must not let a cluster act past it.
    const deadlines = setInterval(() => {
      for (const [id, renewed] of this.#held) this.#pauseIfLate(id, renewed);
    }, leaseDurationMs / 12);
    deadlines.unref();
    let first = true;
    while (!signal.aborted) {
      const startedAt = this.#options.now().getTime();
      const expiries = await this.#round();
      if (first) onFirstRound();
      first = false;
      const delay = nextRoundDelay(this.#options.now().getTime(), startedAt, leaseDurationMs / 3, expiries);
      await sleep(delay, undefined, { signal }).catch(() => undefined);
    }
    clearInterval(deadlines);
    for (const id of [...this.#held.keys(), ...this.#lapsed]) this.#handBack(id);
    while (this.#handingBack.size > 0) await Promise.all(this.#handingBack.values());
    await this.#leaveFleet();
  }

  /**
   * One round; returns when the Leases it may take once expired expire (ms): the other replicas'
   * presence, and the clusters assigned to this replica that another still holds.
   */
  async #round(): Promise<number[]> {
    const { identity, leaseDurationMs, now, logger, registered } = this.#options;
    const at = now();
    const expiries: number[] = [];
    // The Leases it holds are renewed at once, beside the replicas' list rather than after it:
    // each request to a hub that answers slowly would otherwise push the renewals toward the
    // renew deadline (a cluster it keeps is handed back below, once renewed, if no longer its own).
    const renewals = new Map(
      [...this.#held.keys(), ...this.#lapsed].map((id) => [id, this.#acquire(id, true, expiries)] as const),
    );
    const live = await this.#liveReplicas(at).catch((error: unknown) => {
      logger.warn(
        { err: error },
        "sharding: the replicas' Leases could not be read; keeping the clusters held",
      );
      return undefined;
    });
    if (live !== undefined) expiries.push(...live.expiries);
    const replicas = live?.replicas;
    if (replicas !== undefined && this.#settling?.phase !== "settled") {
      this.#settling = settleReplicas(this.#settling, replicas, at.getTime(), leaseDurationMs);
      if (this.#settling.phase === "settled")
        logger.info(
          { identity, replicas, waitedMs: this.#settling.waitedMs },
          "sharding: seen the replicas starting with this one; taking its clusters",
        );
    }
    // Until settled, only the Leases assigned to it that still name it (it restarted under the
    // same identity: nobody else may take them meanwhile) are renewed; no free one is taken.
    const onlyRenew = this.#settling?.phase !== "settled";
    const owners = replicas === undefined ? undefined : assignClusters(registered(), replicas);
    const owns = (id: string) => (owners === undefined ? this.caches(id) : owners.get(id) === identity);
    const ids = new Set([...renewals.keys(), ...(owners?.keys() ?? [])]);
    await Promise.all(
      [...ids].map(async (id) => {
        const renewal = renewals.get(id);
        if (renewal !== undefined) await renewal;
        if (!owns(id)) {
          if (this.caches(id)) this.#handBack(id);
          return;
        }
        // Taken again only once handed back: the hand-over would otherwise release it under this replica.
        if (renewal === undefined && !this.#handingBack.has(id)) await this.#acquire(id, onlyRenew, expiries);
      }),
    );
    return expiries;
  }

  /**
   * Renews or takes the cluster's Lease, as of now: the time the request leaves, not the round's
   * start, which a slow round would make seconds older than the write. A Lease it cannot renew
   * pauses the cluster once late (#pauseIfLate), one another replica took stops it; one it
   * cannot take adds when it expires to `expiries`.
   */
  async #acquire(id: string, onlyRenew: boolean, expiries: number[]): Promise<void> {
    const { writer, namespace, identity, leaseDurationMs, logger, now } = this.#options;
    const at = now();
    let held: boolean | undefined;
    try {
      const attempt = await acquireLease(
        writer,
        { name: clusterLeaseName(id), namespace },
        identity,
        leaseDurationMs,
        at,
        { onlyRenew },
      );
      held = attempt.held;
      if (!attempt.held && attempt.othersUntil !== undefined) expiries.push(attempt.othersUntil);
    } catch (error) {
      logger.warn({ cluster: id, err: error }, "sharding: the cluster's Lease could not be read or written");
    }
    if (held === true) {
      if (this.#lapsed.has(id)) {
        // Renewed again, but when the request left: a renewal that took a deadline resumes nothing.
        if (this.#isLate(at.getTime())) return;
        this.#lapsed.delete(id);
        this.#held.set(id, at.getTime());
        logger.info(
          { cluster: id, identity },
          "sharding: the cluster's Lease renewed again; resuming its writes",
        );
        this.#options.onHeldChange();
        this.#options.resumeCluster(id);
        return;
      }
      const taken = !this.#held.has(id);
      this.#held.set(id, at.getTime());
      if (taken) {
        logger.info({ cluster: id, identity }, "sharding: this replica holds the cluster");
        this.#options.onHeldChange();
      }
      return;
    }
    if (held === false && this.caches(id)) this.#stop(id);
    else {
      const renewed = this.#held.get(id);
      if (renewed !== undefined) this.#pauseIfLate(id, renewed);
    }
  }

  /** Whether a renewal at `renewed` is past client-go's renew deadline, two thirds of the duration. */
  #isLate(renewed: number): boolean {
    return this.#options.now().getTime() - renewed >= this.#options.leaseDurationMs * (2 / 3);
  }

  /** Pauses the cluster's writes once its renew deadline passed: before another replica may take it over. */
  #pauseIfLate(id: string, renewed: number): void {
    if (!this.#isLate(renewed)) return;
    const { logger, identity } = this.#options;
    logger.warn(
      { cluster: id, identity },
      "sharding: the cluster's Lease was not renewed in time; pausing its writes until it is",
    );
    this.#held.delete(id);
    this.#lapsed.add(id);
    this.#options.onHeldChange();
    void this.#options.pauseCluster(id);
  }

  /** Stops the cluster and drops its caches: another replica holds its Lease (this one stalled past the duration). */
  #stop(id: string): void {
    const { logger, identity } = this.#options;
    logger.error(
      { cluster: id, identity },
      "sharding: another replica took the cluster's Lease; stopping it",
    );
    this.#held.delete(id);
    this.#lapsed.delete(id);
    this.#options.onHeldChange();
    void this.#options.stopCluster(id);
  }

  /**
   * Renews this replica's presence Lease; returns the identities of the live replicas (itself
   * included) and when their presence Leases expire unless renewed.
   */
  async #liveReplicas(at: Date): Promise<{ replicas: string[]; expiries: number[] }> {
    const { writer, namespace, identity, leaseDurationMs } = this.#options;
    await acquireLease(writer, this.#presence(), identity, leaseDurationMs, at);
    const leases = await writer.list<LeaseJson>(
      "coordination.k8s.io/v1",
      "Lease",
      namespace,
      `${REPLICA_LEASE_LABEL}=true`,
    );
    const live = leases.filter((lease) => isHeld(lease.spec, at));
    // A replica that died (a pod's name is not reused) leaves its Lease: removed once expired,
    // only as read (a replica that renews meanwhile keeps it, and one that returns creates it again).
    for (const lease of leases)
      if (!live.includes(lease) && lease.metadata.resourceVersion !== undefined)
        void writer
          .remove(leaseObject({ name: lease.metadata.name ?? "", namespace }), {
            resourceVersion: lease.metadata.resourceVersion,
          })
          .catch(() => undefined);
    return {
      replicas: [...new Set([identity, ...live.map((lease) => lease.spec?.holderIdentity ?? "")])],
      // Its own is among them, just renewed: a whole duration ahead, so it never wakes a round.
      expiries: live.flatMap((lease) => heldUntil(lease.spec) ?? []),
    };
  }

  /** Stops the cluster's work, waits for its writes in flight, then hands its Lease back for the new owner. */
  #handBack(id: string): void {
    const handingBack = this.#handOver(id).finally(() => this.#handingBack.delete(id));
    this.#handingBack.set(id, handingBack);
  }

  async #handOver(id: string): Promise<void> {
    const { writer, namespace, identity, now, logger, registered } = this.#options;
    this.#held.delete(id);
    this.#lapsed.delete(id);
    this.#options.onHeldChange();
    await this.#options.stopCluster(id);
    try {
      // A removed cluster's Lease goes with it.
      if (!registered().includes(id))
        await writer.remove(leaseObject({ name: clusterLeaseName(id), namespace }));
      else await releaseLease(writer, { name: clusterLeaseName(id), namespace }, identity, now());
      logger.info({ cluster: id, identity }, "sharding: cluster handed over");
    } catch (error) {
      logger.warn(
        { cluster: id, err: error },
        "sharding: the cluster's Lease could not be handed back; it expires by itself",
      );
    }
  }

  /** Removes the presence Lease on shutdown, so the others rebalance at once rather than after it expires. */
  async #leaveFleet(): Promise<void> {
    const { writer, logger, identity, namespace } = this.#options;
    try {
      await writer.remove(leaseObject({ name: replicaLeaseName(identity), namespace }));
    } catch (error) {
      logger.warn({ err: error }, "sharding: the replica's Lease could not be removed; it expires by itself");
    }
  }

  #presence(): LeaseRef {
    const { namespace, identity } = this.#options;
    return { name: replicaLeaseName(identity), namespace, labels: { [REPLICA_LEASE_LABEL]: "true" } };
  }
}
