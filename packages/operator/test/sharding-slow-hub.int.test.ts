// A replica keeps its clusters while the hub answers slowly (a hub whose kube-apiserver is busy
// with a fleet's rollouts, bench/fleet part (d)): its rounds start a third of the Lease duration
// apart whatever they take, and renew the cluster Leases it holds first, beside the replicas'
// list. Before, rounds were spaced a third of the duration after each other's end and renewed
// after the list: at 0.9 s per request the renewal came later than the renew deadline, and the
// replica dropped and took its clusters again every round (each time re-listing a whole cluster).
// And a replica whose own process stalls past the renew deadline (a starved machine, a heap
// snapshot) pauses its clusters' writes and resumes them once renewed, without stopping them:
// before, it stopped them, dropped their caches and listed them again.
import { setTimeout as sleep } from "node:timers/promises";
import { ObjectWriter, silentLogger } from "@svc/kube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import { ClusterShards, type ClusterShardsOptions } from "../src/sharding.ts";

const hub = testKubeConfig();
const LEASE_MS = 9_000;
/** Added to every request to the hub: a round's five requests take 4.5 s, over its 3 s. */
const HUB_LATENCY_MS = 900;
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

/** A replica of `clusters` with its calls to the operator recorded. */
function replica(identity: string, clusters: string[], options: Partial<ClusterShardsOptions> = {}) {
  const calls = {
    heldChanges: 0,
    stopped: [] as string[],
    paused: [] as string[],
    /** Of the paused clusters, those whose caches it kept while it did not hold them. */
    cachedWhilePaused: [] as string[],
    resumed: [] as string[],
  };
  const shards: ClusterShards = new ClusterShards({
    writer,
    namespace,
    identity,
    leaseDurationMs: LEASE_MS,
    now: () => new Date(),
    logger: silentLogger,
    registered: () => clusters,
    onHeldChange: () => {
      calls.heldChanges++;
    },
    stopCluster: (id) => {
      calls.stopped.push(id);
      return Promise.resolve();
    },
    pauseCluster: (id) => {
      calls.paused.push(id);
      if (shards.caches(id) && !shards.holds(id)) calls.cachedWhilePaused.push(id);
      return Promise.resolve();
    },
    resumeCluster: (id) => {
      calls.resumed.push(id);
    },
    ...options,
  });
  return { shards, calls };
}

describe("a replica on a slow hub", () => {
  it("keeps the clusters it holds, round after round", async () => {
    const clusters = ["slow-a", "slow-b"];
    const { shards, calls } = replica("slow-replica", clusters, { writer: slowWriter });
    const stopping = new AbortController();
    const running = shards.run(stopping.signal, () => undefined);
    // Settling (a round without a newcomer), taking both clusters, then holding them for more
    // than two renew deadlines (6 s) and five rounds.
    await sleep(2.5 * LEASE_MS);
    const holding = clusters.filter((id) => shards.holds(id));
    const whileRunning = structuredClone(calls);
    stopping.abort();
    await running;
    expect(holding).toEqual(clusters);
    // Taken once each, never paused or dropped (and taken again).
    expect(whileRunning).toEqual({
      heldChanges: clusters.length,
      stopped: [],
      paused: [],
      cachedWhilePaused: [],
      resumed: [],
    });
    // Handed back on shutdown, after the rounds.
    expect(calls.stopped.sort()).toEqual(clusters);
  }, 60_000);
});

describe("a replica whose process stalls past the renew deadline", () => {
  it("pauses its clusters' writes, keeps their caches, and resumes them once the Lease is renewed", async () => {
    const clusters = ["stall-a", "stall-b"];
    const { shards, calls } = replica("stalled-replica", clusters);
    const stopping = new AbortController();
    const running = shards.run(stopping.signal, () => undefined);
    // Settled (a round without a newcomer, about a third of the duration) and both clusters held.
    const deadline = Date.now() + LEASE_MS;
    while (!clusters.every((id) => shards.holds(id)) && Date.now() < deadline) await sleep(100);
    expect(clusters.filter((id) => shards.holds(id))).toEqual(clusters);
    // The event loop blocked past the renew deadline (6 s) and within the duration (9 s): no
    // renewal, no deadline check, as in a process that gets no CPU.
    const blockedUntil = Date.now() + 0.8 * LEASE_MS;
    while (Date.now() < blockedUntil);
    // The deadline check runs first (timers before the renewals of the next round answer), then
    // that round renews the Leases, which still name it: the writes resume.
    const resumedBy = Date.now() + LEASE_MS;
    while (calls.resumed.length < clusters.length && Date.now() < resumedBy) await sleep(100);
    const holding = clusters.filter((id) => shards.holds(id));
    const whileRunning = structuredClone(calls);
    stopping.abort();
    await running;
    expect(whileRunning.paused.sort()).toEqual(clusters);
    expect(whileRunning.cachedWhilePaused.sort()).toEqual(clusters);
    expect(whileRunning.resumed.sort()).toEqual(clusters);
    expect(holding).toEqual(clusters);
    // Never stopped (their caches dropped) while running; handed back on shutdown.
    expect(whileRunning.stopped).toEqual([]);
    expect(calls.stopped.sort()).toEqual(clusters);
  }, 60_000);
});
