// Which operator replica owns which cluster: a pure function of the cluster ids and the live
// replicas, as Argo CD shards its application controller by cluster, so that every replica
// computes the same answer from the same Leases. Bounded-load rendezvous hashing: every
// (cluster, replica) pair has a rank (a hash of both ids); taken highest first, a pair assigns
// its cluster when the cluster has no owner yet and the replica still has room. Rendezvous ranks
// keep most clusters where they are when a replica joins or leaves; the bound keeps every
// replica's load within one of the others'.
import { createHash } from "node:crypto";

/** The rank of `replica` for `cluster`: the first 48 bits of a SHA-256 of both, the same in every process. */
function rank(cluster: string, replica: string): number {
  return Number.parseInt(
    createHash("sha256").update(`${cluster}\n${replica}`).digest("hex").slice(0, 12),
    16,
  );
}

/**
 * The owner of each cluster among `replicas` (an empty map without replicas). Every cluster has
 * exactly one owner; clusters % replicas owners hold one cluster more than the rest. Duplicate
 * ids count once; the order of either list does not matter.
 */
export function assignClusters(
  clusters: readonly string[],
  replicas: readonly string[],
): Map<string, string> {
  const owners = new Map<string, string>();
  const candidates = [...new Set(replicas)].sort();
  if (candidates.length === 0) return owners;
  const ids = [...new Set(clusters)].sort();
  const floor = Math.floor(ids.length / candidates.length);
  /** How many replicas may hold floor + 1 clusters. */
  const extra = ids.length % candidates.length;
  const loads = new Map(candidates.map((replica) => [replica, 0]));
  let above = 0;
  // Every (cluster, replica) pair, highest rank first: each cluster goes to the best-ranked
  // replica with room when its pair comes up.
  const pairs = ids
    .flatMap((cluster) => candidates.map((replica) => ({ cluster, replica, rank: rank(cluster, replica) })))
    .sort(
      (a, b) => b.rank - a.rank || (a.cluster + "\n" + a.replica < b.cluster + "\n" + b.replica ? -1 : 1),
    );
  for (const { cluster, replica } of pairs) {
    if (owners.has(cluster)) continue;
    const load = loads.get(replica) ?? 0;
    if (load > floor || (load === floor && above === extra)) continue;
    if (load === floor) above++;
    loads.set(replica, load + 1);
    owners.set(cluster, replica);
  }
  return owners;
}
