// When a starting operator replica may take its first clusters (sharding by cluster). Replicas
// started together (a fresh install, a rollout restarting them all) do not see each other at
// their first list of the live replicas: each would take every cluster assigned to it by a view
// that lacks the others, start its caches, and hand most of them back a round later, keeping the
// memory of caching the whole fleet. So a replica announces itself (its presence Lease), lists
// the live replicas every round, and takes clusters only once a whole round passed in which no
// replica it had not seen yet appeared (or, under a stream of newcomers, once a Lease duration
// passed since it announced itself). A replica that announced itself within a round of this one
// is in the list this one settles on, and this one is in the list it settles on, so both compute
// the same assignment. Replicas that go away do not prolong the wait: they move no cluster to
// this replica that it would then hand back.

/** A starting replica: still waiting for the others, or free to take the clusters assigned to it. */
export type ReplicaSettling =
  | {
      readonly phase: "settling";
      /** When the replica first listed the live replicas, just after announcing itself (ms). */
      readonly announcedAt: number;
      /** Every replica seen live since then. */
      readonly seen: readonly string[];
      /** When a replica not seen before last appeared (the announcement at first). */
      readonly lastNewcomerAt: number;
    }
  | { readonly phase: "settled"; readonly at: number; readonly waitedMs: number };

/** How long a replica waits, from its Lease duration: a quiet round (a third of it, its renewal period), at most the duration. */
export function settlingTimings(leaseDurationMs: number): { quietMs: number; maxMs: number } {
  return { quietMs: leaseDurationMs / 3, maxMs: leaseDurationMs };
}

/**
 * The replica's start after one more list of the live replicas (`live`, itself included), made at
 * `now` (ms, the caller's clock): `undefined` before the first list. Settled stays settled.
 */
export function settleReplicas(
  state: ReplicaSettling | undefined,
  live: readonly string[],
  now: number,
  leaseDurationMs: number,
): ReplicaSettling {
  if (state?.phase === "settled") return state;
  const { quietMs, maxMs } = settlingTimings(leaseDurationMs);
  const announcedAt = state?.announcedAt ?? now;
  const before = new Set(state?.seen ?? []);
  const newcomer = state === undefined || live.some((replica) => !before.has(replica));
  const lastNewcomerAt = newcomer ? now : state.lastNewcomerAt;
  if (now - lastNewcomerAt >= quietMs || now - announcedAt >= maxMs)
    return { phase: "settled", at: now, waitedMs: now - announcedAt };
  return {
    phase: "settling",
    announcedAt,
    seen: [...new Set([...before, ...live])].sort(),
    lastNewcomerAt,
  };
}
