// When a sharded replica runs its next round (sharding-round.ts): every third of the Lease
// duration, or just after a Lease it saw held by another expires; and, simulated over random
// kill times and round phases, a dead replica's Lease is looked at again within the margin of its
// expiry, so a takeover waits for the Lease duration, not for the duration plus a round.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LEASE_EXPIRY_MARGIN_MS, nextRoundDelay } from "../../src/index.ts";

const LEASE = 15_000;
const ROUND = LEASE / 3;

describe("nextRoundDelay", () => {
  it("waits a round when no Lease expires before it", () => {
    expect(nextRoundDelay(1_000, 1_000, ROUND, [])).toBe(ROUND);
    // A live replica renews every round: its Lease expires more than a round ahead.
    expect(nextRoundDelay(1_000, 1_000, ROUND, [1_000 + LEASE, 1_000 + ROUND + 1])).toBe(ROUND);
  });

  it("counts a round from its start, so a slow round does not push the next renewal later", () => {
    // The round started at 1,000 and took 4,000 of its 5,000: the next starts 1,000 later.
    expect(nextRoundDelay(5_000, 1_000, ROUND, [])).toBe(1_000);
    // A round longer than the period: the next starts at once.
    expect(nextRoundDelay(7_000, 1_000, ROUND, [])).toBe(0);
    // An expiry still wakes it earlier than the regular round.
    expect(nextRoundDelay(5_000, 1_000, ROUND, [5_500])).toBe(500 + LEASE_EXPIRY_MARGIN_MS);
  });

  it("wakes just after the earliest Lease that expires before the next round", () => {
    expect(nextRoundDelay(1_000, 1_000, ROUND, [4_000, 3_000, 9_000])).toBe(2_000 + LEASE_EXPIRY_MARGIN_MS);
  });

  it("ignores Leases already expired (they were free to take in this round)", () => {
    expect(nextRoundDelay(10_000, 10_000, ROUND, [9_000, 10_000 - LEASE_EXPIRY_MARGIN_MS])).toBe(ROUND);
    expect(nextRoundDelay(10_000, 10_000, ROUND, [10_000])).toBe(LEASE_EXPIRY_MARGIN_MS);
  });

  it("looks at a dead replica's Lease again within the margin of its expiry, whatever the phases", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: ROUND - 1 }),
        fc.integer({ min: 0, max: ROUND - 1 }),
        fc.integer({ min: ROUND, max: 60_000 }),
        (deadPhase, survivorPhase, killedAt) => {
          // The dead replica renewed at deadPhase + k rounds until it was killed.
          const renewedBy = (t: number) =>
            deadPhase + Math.floor((Math.min(t, killedAt) - deadPhase) / ROUND) * ROUND;
          const expiry = renewedBy(killedAt) + LEASE;
          // The survivor rounds from its own phase, seeing the Lease's expiry as it stands then.
          let now = survivorPhase;
          let rounds = 0;
          while (now <= expiry && rounds < 1_000) {
            const seen = now < deadPhase ? [] : [renewedBy(now) + LEASE];
            now += nextRoundDelay(now, now, ROUND, seen);
            rounds++;
          }
          expect(now).toBeGreaterThan(expiry);
          expect(now - expiry).toBeLessThanOrEqual(LEASE_EXPIRY_MARGIN_MS);
        },
      ),
    );
  });
});
