// Random inputs draw from the run's seed, printed by the test setup (SVC_TEST_SEED replays it).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  afterFailure,
  backoffDelay,
  DEFAULT_BACKOFF,
  delayAfterWatchEnded,
  listed,
  listQuery,
  START_POSITION,
  startDelay,
  type SyncPosition,
} from "../src/backoff.ts";

/** The delay at the top of the jitter range (random just under 1). */
const TOP = 0.999_999_9;

describe("backoffDelay (full jitter)", () => {
  it("draws up to a ceiling that doubles from 1 s to the 15 s cap", () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((a) => backoffDelay(DEFAULT_BACKOFF, a, TOP))).toEqual([
      999, 1999, 3999, 7999, 14_999, 14_999, 14_999,
    ]);
    expect(backoffDelay(DEFAULT_BACKOFF, 10_000, TOP)).toBe(14_999);
  });

  it("spreads every retry uniformly from 0 to its ceiling", () => {
    fc.assert(
      fc.property(
        fc.nat(100),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, r) => {
          const ceiling = Math.min(15_000, 1000 * 2 ** attempt);
          const delay = backoffDelay(DEFAULT_BACKOFF, attempt, r);
          expect(delay).toBe(Math.floor(r * ceiling));
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThan(ceiling);
        },
      ),
    );
    expect(backoffDelay(DEFAULT_BACKOFF, 3, 0)).toBe(0);
  });
});

describe("startDelay", () => {
  it("waits 0 up to the bound before the first list", () => {
    fc.assert(
      fc.property(fc.nat(10_000), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (max, r) => {
        const delay = startDelay(max, r);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(Math.max(0, max - 1));
      }),
    );
    expect(startDelay(0, 0.7)).toBe(0);
  });
});

describe("listQuery and afterFailure", () => {
  const fail = (position: SyncPosition, failed: "list" | "watch", status: number | undefined) =>
    afterFailure(position, failed, status, DEFAULT_BACKOFF, 0, 0.5);

  it("lists first from the watch cache (resourceVersion=0), in pages", () => {
    expect(START_POSITION.mustList).toBe(true);
    expect(listQuery(START_POSITION)).toEqual({ resourceVersion: "0", paged: true });
  });

  it("after a dropped watch, watches on from the last resourceVersion without listing", () => {
    const position = { ...listed("40"), resourceVersion: "57" };
    for (const status of [undefined, 500, 503, 429, 403]) {
      expect(fail(position, "watch", status)).toEqual({ position, delayMs: 500 });
    }
  });

  it("after a watch expired (410), lists from the cache no older than the last resourceVersion", () => {
    const next = fail({ ...listed("40"), resourceVersion: "57" }, "watch", 410);
    expect(next).toEqual({
      position: { resourceVersion: "57", mustList: true, listFromVersionRefused: false },
      delayMs: 500,
    });
    expect(listQuery(next.position)).toEqual({
      resourceVersion: "57",
      resourceVersionMatch: "NotOlderThan",
      paged: false,
    });
  });

  it("reads the latest state only after the API server refused a list from a version", () => {
    const relisting = { resourceVersion: "57", mustList: true, listFromVersionRefused: false };
    for (const status of [410, 504]) {
      const next = fail(relisting, "list", status).position;
      expect(listQuery(next)).toEqual({ paged: true });
      expect(listQuery(listed("90"))).toEqual({
        resourceVersion: "90",
        resourceVersionMatch: "NotOlderThan",
        paged: false,
      });
    }
    expect(fail(relisting, "list", 503).position).toEqual(relisting);
    expect(fail(START_POSITION, "list", 504).position).toEqual(START_POSITION);
  });

  it("over any run of failures, never lists from nothing unless refused and never relists without a 410", () => {
    const failure = fc.record({
      failed: fc.constantFrom("list" as const, "watch" as const),
      status: fc.constantFrom(undefined, 410, 429, 500, 503, 504, 403),
      listSucceeds: fc.boolean(),
      events: fc.nat(3),
    });
    fc.assert(
      fc.property(fc.array(failure, { maxLength: 30 }), (steps) => {
        let position = listed("100");
        let version = 100;
        let refusedSinceList = false;
        for (const step of steps) {
          const failedAt = position.mustList ? "list" : step.failed;
          const next = afterFailure(position, failedAt, step.status, DEFAULT_BACKOFF, 0, 0.5).position;
          const query = listQuery(next);
          if (!next.mustList) expect(next.resourceVersion).toBe(String(version));
          if (next.mustList !== position.mustList)
            expect(failedAt === "watch" && step.status === 410).toBe(true);
          refusedSinceList ||= failedAt === "list" && (step.status === 410 || step.status === 504);
          expect(query.resourceVersion).toBe(refusedSinceList ? undefined : String(version));
          position = next;
          if (position.mustList && step.listSucceeds) {
            position = listed(String((version += 1)));
            refusedSinceList = false;
          }
          if (!position.mustList)
            position = { ...position, resourceVersion: String((version += step.events)) };
        }
      }),
    );
  });
});

describe("delayAfterWatchEnded", () => {
  it("watches again at once after a watch of normal length", () => {
    expect(delayAfterWatchEnded(300_000, DEFAULT_BACKOFF, 0, TOP)).toBe(0);
    expect(delayAfterWatchEnded(1000, DEFAULT_BACKOFF, 3, TOP)).toBe(0);
  });

  it("backs off when watches end as soon as they start", () => {
    expect(delayAfterWatchEnded(5, DEFAULT_BACKOFF, 0, TOP)).toBe(999);
    expect(delayAfterWatchEnded(5, DEFAULT_BACKOFF, 2, TOP)).toBe(3999);
  });
});
