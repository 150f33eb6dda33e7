// When a sharded operator replica runs its next round. Rounds start every third of the Lease
// duration (the renewal period), but a Lease that another replica stopped renewing (it died)
// expires between two rounds, and waiting for the next one would add up to a round to every
// takeover. So a replica that saw, in a round, a Lease it may take once expired (a replica's
// presence, or a cluster assigned to it still held by another) wakes just after it expires.
// A live replica renews its Leases every round, so their expiry is always more than a round
// ahead and changes nothing.

/** How long after a Lease's expiry a replica looks again: a Lease is still held at the very instant of expiry. */
export const LEASE_EXPIRY_MARGIN_MS = 100;

/**
 * Ms from `now` to the next round: a round after the last one started (`startedAt`; at once when
 * that round took longer), or just after the earliest of `expiries` (ms, the same clock) still
 * ahead. Counted from the start, not the end: a hub that answers slowly stretches a round, and
 * rounds spaced by a round *after* each other's end would renew the Leases further apart than
 * the renew deadline allows (the fleet benchmark saw replicas drop and retake their clusters).
 */
export function nextRoundDelay(
  now: number,
  startedAt: number,
  roundMs: number,
  expiries: readonly number[],
): number {
  let delay = Math.max(0, startedAt + roundMs - now);
  for (const expiry of expiries) {
    const after = expiry - now + LEASE_EXPIRY_MARGIN_MS;
    if (after > 0 && after < delay) delay = after;
  }
  return delay;
}
