// Which replica owns which cluster (cluster-assignment.ts), over random cluster ids and
// replica identities (fast-check prints the seed of a failing case): one owner per cluster,
// loads within one, the same answer in every replica, and few clusters moved when a replica
// joins (the hand-overs a user sees as a short pause of that cluster's deliveries).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assignClusters } from "../../src/index.ts";

const ids = (prefix: string, max: number) =>
  fc.uniqueArray(
    fc.stringMatching(/^[a-z0-9]{1,12}$/).map((id) => `${prefix}${id}`),
    { maxLength: max },
  );
const fleet = fc.record({ clusters: ids("c-", 60), replicas: ids("op-", 8) });

/** Clusters whose owner differs between two assignments. */
function moved(before: Map<string, string>, after: Map<string, string>): number {
  return [...before].filter(([cluster, owner]) => after.get(cluster) !== owner).length;
}

describe("assignClusters", () => {
  it("gives every cluster exactly one live owner, and loads that differ by at most one", () => {
    fc.assert(
      fc.property(fleet, ({ clusters, replicas }) => {
        const owners = assignClusters(clusters, replicas);
        if (replicas.length === 0) {
          expect(owners.size).toBe(0);
          return;
        }
        expect([...owners.keys()].sort()).toEqual([...clusters].sort());
        for (const owner of owners.values()) expect(replicas).toContain(owner);
        const loads = replicas.map((replica) => [...owners.values()].filter((o) => o === replica).length);
        expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it("answers the same whatever order each replica lists the clusters and replicas in", () => {
    fc.assert(
      fc.property(fleet, fc.nat(), ({ clusters, replicas }, shift) => {
        const rotate = (list: string[]) => [
          ...list.slice(shift % (list.length || 1)),
          ...list.slice(0, shift % (list.length || 1)),
        ];
        expect(assignClusters(rotate(clusters).reverse(), rotate(replicas))).toEqual(
          assignClusters(clusters, replicas),
        );
      }),
    );
  });

  it("moves few clusters when a replica joins: about the new replica's share", () => {
    let movedTotal = 0;
    let shareTotal = 0;
    fc.assert(
      fc.property(fleet, fc.stringMatching(/^[a-z0-9]{1,12}$/), ({ clusters, replicas }, joining) => {
        fc.pre(replicas.length > 0 && !replicas.includes(`op-${joining}`));
        const before = assignClusters(clusters, replicas);
        const after = assignClusters(clusters, [...replicas, `op-${joining}`]);
        const share = Math.floor(clusters.length / (replicas.length + 1));
        // The joining replica takes its share; the load bound may shift more, and in a small
        // fleet with a tight bound a cascade: 9 clusters, 8 replicas and a ninth moved 6 (seed
        // 956215664), so no per-fleet multiple holds; the average below does (docs/operator.md).
        expect(
          [...after.values()].filter((owner) => owner === `op-${joining}`).length,
        ).toBeGreaterThanOrEqual(share);
        movedTotal += moved(before, after);
        shareTotal += Math.ceil(clusters.length / (replicas.length + 1));
      }),
      { numRuns: 500 },
    );
    // Over many fleets, close to the minimum (one share per join): measured 1.17×.
    expect(movedTotal).toBeLessThanOrEqual(1.5 * shareTotal);
  });

  it("moves only the leaving replica's clusters and the few the load bound shifts when one leaves", () => {
    const clusters = Array.from({ length: 30 }, (_, i) => `cluster-${i}`);
    const three = assignClusters(clusters, ["op-a", "op-b", "op-c"]);
    const two = assignClusters(clusters, ["op-a", "op-b"]);
    const kept = clusters.filter((c) => three.get(c) !== "op-c" && two.get(c) === three.get(c));
    expect(kept.length).toBeGreaterThanOrEqual(15);
    for (const cluster of clusters) expect(two.get(cluster)).not.toBe("op-c");
  });
});
