// A replica keeps its clusters while the hub answers slowly (a hub whose kube-apiserver is busy
// with a fleet's rollouts, bench/fleet part (d)): its rounds start a third of the Lease duration
// apart whatever they take, and renew the cluster Leases it holds first, beside the replicas'
// list. Before, rounds were spaced a third of the duration after each other's end and renewed
// after the list: at 0.9 s per request the renewal came later than the renew deadline, and the
// replica dropped and took its clusters again every round (each time re-listing a whole cluster).
import { setTimeout as sleep } from "node:timers/promises";
import { ObjectWriter, silentLogger } from "@svc/kube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import { ClusterShards } from "../src/sharding.ts";

const hub = testKubeConfig();
const LEASE_MS = 9_000;
/** Added to every request to the hub: a round's five requests take 4.5 s, over its 3 s. */
const HUB_LATENCY_MS = 900;
const CLUSTERS = ["slow-a", "slow-b"];
let namespace: string;
const writer = new ObjectWriter(hub, { timeoutMs: 10_000 });

/** The writer, with every request held back by HUB_LATENCY_MS. */
const slowWriter = new Proxy(writer, {
  get(target, property) {
    const value: unknown = Reflect.get(target, property, target);
    if (typeof value !== "function") return value;
    return async (...args: unknown[]) => {
      await sleep(HUB_LATENCY_MS);
      return (value as (...a: unknown[]) => unknown).apply(target, args);
    };
  },
});

beforeAll(async () => {
  namespace = await testNamespace(hub, "op-slowhub");
});

afterAll(async () => {
  await writer.close();
});

describe("a replica on a slow hub", () => {
  it("keeps the clusters it holds, round after round", async () => {
    let heldChanges = 0;
    const stopped: string[] = [];
    const shards: ClusterShards = new ClusterShards({
      writer: slowWriter,
      namespace,
      identity: "slow-replica",
      leaseDurationMs: LEASE_MS,
      now: () => new Date(),
      logger: silentLogger,
      registered: () => CLUSTERS,
      onHeldChange: () => {
        heldChanges++;
      },
      stopCluster: (id) => {
        stopped.push(id);
        return Promise.resolve();
      },
    });
    const stopping = new AbortController();
    const running = shards.run(stopping.signal, () => undefined);
    // Settling (a round without a newcomer), taking both clusters, then holding them for more
    // than two renew deadlines (6 s) and five rounds.
    await sleep(2.5 * LEASE_MS);
    const holding = CLUSTERS.filter((id) => shards.holds(id));
    const changesWhileRunning = heldChanges;
    const stoppedWhileRunning = [...stopped];
    stopping.abort();
    await running;
    expect(holding).toEqual(CLUSTERS);
    // Taken once each, never dropped (and taken again).
    expect(stoppedWhileRunning).toEqual([]);
    expect(changesWhileRunning).toBe(CLUSTERS.length);
    // Handed back on shutdown, after the rounds.
    expect(stopped.sort()).toEqual(CLUSTERS);
  }, 60_000);
});
