// When a starting operator replica takes its first clusters (replica-settling.ts): a lone replica
// after one round, a replica that sees others arrive once a round passed without newcomers, at
// most a Lease duration after it announced itself; and, simulated over random start times and
// round lengths, replicas that start within a round of each other all settle on a list holding
// every one of them, so they compute the same assignment and none takes a cluster it then hands back.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assignClusters, settleReplicas, type ReplicaSettling } from "../../src/index.ts";

const LEASE = 15_000;
const ROUND = LEASE / 3;

/** The state after lists at `times`, each with its replicas. */
function after(lists: [number, string[]][]): ReplicaSettling | undefined {
  let state: ReplicaSettling | undefined;
  for (const [now, live] of lists) state = settleReplicas(state, live, now, LEASE);
  return state;
}

describe("settleReplicas", () => {
  it("lets a lone replica take clusters one round after it announced itself, not at once", () => {
    expect(after([[1000, ["a"]]])?.phase).toBe("settling");
    expect(
      after([
        [1000, ["a"]],
        [1000 + ROUND - 1, ["a"]],
      ])?.phase,
    ).toBe("settling");
    expect(
      after([
        [1000, ["a"]],
        [1000 + ROUND, ["a"]],
      ]),
    ).toEqual({ phase: "settled", at: 1000 + ROUND, waitedMs: ROUND });
  });

  it("settles at once after a round when the others were already there (a replica joining a running fleet)", () => {
    expect(
      after([
        [0, ["a", "b", "new"]],
        [ROUND, ["a", "b", "new"]],
      ])?.phase,
    ).toBe("settled");
  });

  it("waits a round from the last replica it had not seen before", () => {
    const lists: [number, string[]][] = [
      [0, ["a"]],
      [ROUND, ["a", "b"]],
    ];
    expect(after(lists)?.phase).toBe("settling");
    expect(after([...lists, [2 * ROUND - 1, ["a", "b"]]])?.phase).toBe("settling");
    expect(after([...lists, [2 * ROUND, ["b", "a"]]])).toMatchObject({
      phase: "settled",
      waitedMs: 2 * ROUND,
    });
  });

  it("is not held up by replicas that go away (a dead replica's presence expiring)", () => {
    expect(
      after([
        [0, ["a", "dead", "c"]],
        [ROUND, ["a", "c"]],
      ])?.phase,
    ).toBe("settled");
  });

  it("settles a Lease duration after announcing itself even while newcomers keep arriving", () => {
    const lists: [number, string[]][] = [0, 1, 2].map((i) => [
      i * ROUND,
      ["a", ...Array.from({ length: i }, (_, n) => `n${n}`)],
    ]);
    expect(after(lists)?.phase).toBe("settling");
    expect(after([...lists, [LEASE, ["a", "n0", "n1", "n2"]]])).toMatchObject({
      phase: "settled",
      waitedMs: LEASE,
    });
  });

  it("stays settled: a replica that arrives later is a joiner, handled by the assignment", () => {
    const settled = after([
      [0, ["a"]],
      [ROUND, ["a"]],
    ]);
    expect(settleReplicas(settled, ["a", "b"], 2 * ROUND, LEASE)).toBe(settled);
  });

  it("gives replicas started within a round of each other one view of the fleet, whatever their rounds' lengths", () => {
    const replicas = ["op-a", "op-b", "op-c", "op-d", "op-e"];
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: replicas.length }),
        fc.array(fc.integer({ min: 0, max: ROUND - 1 }), {
          minLength: replicas.length,
          maxLength: replicas.length,
        }),
        // Each round's length: the period plus the time its reads and writes took.
        fc.array(fc.integer({ min: 0, max: ROUND }), { minLength: 20, maxLength: 20 }),
        (count, starts, slowness) => {
          const fleet = replicas.slice(0, count).map((name, i) => ({ name, start: starts[i] ?? 0 }));
          // A replica announces itself at its start; a list at `t` holds everyone who announced by then.
          const liveAt = (t: number) => fleet.filter((r) => r.start <= t).map((r) => r.name);
          const views = fleet.map(({ start }, i) => {
            let state: ReplicaSettling | undefined;
            let t = start;
            for (let round = 0; ; round++) {
              state = settleReplicas(state, liveAt(t), t, LEASE);
              if (state.phase === "settled") return liveAt(t);
              t += ROUND + (slowness[(round + i) % slowness.length] ?? 0);
            }
          });
          const all = fleet.map((r) => r.name);
          for (const view of views) expect(view.sort()).toEqual(all.sort());
          const clusters = ["local", "east", "west", "north", "south"];
          for (const view of views)
            expect(assignClusters(clusters, view)).toEqual(assignClusters(clusters, all));
        },
      ),
    );
  });
});
