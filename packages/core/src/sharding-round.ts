// When a sharded operator replica runs its next round. Rounds come every third of the Lease
// duration (the renewal period), but a Lease that another replica stopped renewing (it died)
// expires between two rounds, and waiting for the next one would add up to a round to every
// takeover. So a replica that saw, in a round, a Lease it may take once expired (a replica's
// presence, or a cluster assigned to it still held by another) wakes just after it expires.
// A live replica renews its Leases every round, so their expiry is always more than a round
// ahead and changes nothing.

/** How long after a Lease's expiry a replica looks again: a Lease is still held at the very instant of expiry. */
export const LEASE_EXPIRY_MARGIN_MS = 100;

/** Ms from `now` to the next round: `roundMs`, or just after the earliest of `expiries` (ms, the same clock) still ahead. */
export function nextRoundDelay(now: number, roundMs: number, expiries: readonly number[]): number {
  let delay = roundMs;
  for (const expiry of expiries) {
    const after = expiry - now + LEASE_EXPIRY_MARGIN_MS;
    if (after > 0 && after < delay) delay = after;
  }
  return delay;
}
