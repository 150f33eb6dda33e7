// The plan's decisions with a fake clock and a simulated fleet: each round the "operator" records
// the decided status, makes its writes (the flag's generation moves; delivery follows a round
// later) and the workloads answer as the test scripts them.
import { describe, expect, it } from "vitest";
import {
  applyTarget,
  clustersToObserve,
  decidePlan,
  planChangeDigest,
  type ClusterObservation,
  type FeatureFlagSpec,
  type FlagRolloutSpec,
  type FlagRolloutStatus,
  type ObservedWorkload,
  type PlanCluster,
  type PlanDecision,
} from "../../src/index.ts";

const FLAG: FeatureFlagSpec = {
  type: "boolean",
  defaultValue: "false",
  delivery: { envVar: { selector: { matchLabels: { app: "web" } } } },
};

interface SimCluster {
  labels: Record<string, string>;
  protected?: boolean;
  reachable: boolean;
  flag: { spec: FeatureFlagSpec; generation: number; observedGeneration: number } | undefined;
  /** What the workload looks like once the cluster's flag holds a given defaultValue. */
  workload: (value: string) => ObservedWorkload;
  writes: FeatureFlagSpec[];
}

const healthy = (name: string, restarts = 0): ObservedWorkload => ({
  kind: "Deployment",
  name: "web",
  generation: 2,
  observedGeneration: 2,
  desired: 1,
  updated: 1,
  ready: 1,
  progressDeadlineExceeded: false,
  pods: [{ name, ready: true, restarts }],
});

const crashing: ObservedWorkload = {
  ...healthy("web-new"),
  ready: 0,
  pods: [
    { name: "web-old", ready: true, restarts: 0 },
    { name: "web-new", ready: false, restarts: 2, waitingReason: "CrashLoopBackOff" },
  ],
};

function cluster(
  labels: Record<string, string>,
  workload: SimCluster["workload"] = () => healthy("web-1"),
): SimCluster {
  return {
    labels,
    reachable: true,
    flag: { spec: FLAG, generation: 1, observedGeneration: 1 },
    workload,
    writes: [],
  };
}

class Fleet {
  now = Date.parse("2026-11-27T10:00:00Z");
  status: FlagRolloutStatus = {};
  decisions: PlanDecision[] = [];
  readonly clusters: Record<string, SimCluster>;
  spec: FlagRolloutSpec;

  constructor(clusters: Record<string, SimCluster>, spec: FlagRolloutSpec) {
    this.clusters = clusters;
    this.spec = spec;
  }

  at(id: string): SimCluster {
    const found = this.clusters[id];
    if (found === undefined) throw new Error(`no cluster ${id}`);
    return found;
  }

  registry(): Map<string, PlanCluster> {
    return new Map(
      Object.entries(this.clusters).map(([id, c]) => [
        id,
        { labels: c.labels, protected: c.protected ?? false },
      ]),
    );
  }

  observe(): Map<string, ClusterObservation> {
    const ids = clustersToObserve(this.spec, this.status, this.registry());
    return new Map(
      ids.map((id): [string, ClusterObservation] => {
        const c = this.clusters[id];
        if (c === undefined || !c.reachable) return [id, { reachable: false, message: "connection refused" }];
        const flag = c.flag;
        return [
          id,
          {
            reachable: true,
            flag: flag && {
              ...flag,
              phase: flag.observedGeneration >= flag.generation ? "Delivered" : "Pending",
              message: undefined,
            },
            workloads: flag ? [c.workload(flag.spec.defaultValue)] : [],
          },
        ];
      }),
    );
  }

  /** One round; `lose` drops the writes (the operator died after recording the status). */
  round(options: { lose?: boolean } = {}): PlanDecision {
    // Delivery catches up with the last write one round later.
    for (const c of Object.values(this.clusters)) if (c.flag) c.flag.observedGeneration = c.flag.generation;
    const decision = decidePlan({
      name: "checkout-on",
      spec: this.spec,
      generation: 1,
      status: this.status,
      now: new Date(this.now),
      clusters: this.registry(),
      observed: this.observe(),
    });
    this.status = decision.status;
    this.decisions.push(decision);
    if (!options.lose)
      for (const write of decision.writes) {
        const c = this.clusters[write.clusterId];
        if (c?.flag === undefined) throw new Error(`write to ${write.clusterId} without a flag`);
        c.flag = {
          ...c.flag,
          spec: applyTarget(c.flag.spec, write.target),
          generation: c.flag.generation + 1,
        };
        c.writes.push(c.flag.spec);
      }
    return decision;
  }

  /** Rounds every `stepMs` until the plan finishes (bounded). */
  runToEnd(stepMs = 1000, maxRounds = 500): FlagRolloutStatus {
    for (let i = 0; i < maxRounds; i++) {
      this.round();
      if (["Succeeded", "RolledBack", "Failed", "Rejected"].includes(this.status.phase ?? ""))
        return this.status;
      this.now += stepMs;
    }
    throw new Error(`plan did not finish: ${JSON.stringify(this.status)}`);
  }
}

const twoWaves = (bakeSeconds = 30): FlagRolloutSpec => ({
  flag: { namespace: "shop", name: "checkout" },
  change: { defaultValue: "true" },
  waves: [
    { clusters: ["staging"], bakeSeconds },
    { clusterSelector: { matchLabels: { env: "prod" } }, bakeSeconds },
  ],
});

describe("a plan's decisions", () => {
  it("applies a good change wave by wave, each after the one before baked healthy", () => {
    const fleet = new Fleet(
      {
        staging: cluster({ env: "staging" }),
        "prod-eu": cluster({ env: "prod" }),
        "prod-us": cluster({ env: "prod" }),
      },
      twoWaves(30),
    );
    let prodWrittenAt: number | undefined;
    let stagingBakedUntil: number | undefined;
    for (let i = 0; i < 200 && fleet.status.phase !== "Succeeded"; i++) {
      fleet.round();
      stagingBakedUntil ??= fleet.status.waves?.[0]?.bakeUntil
        ? Date.parse(fleet.status.waves[0].bakeUntil)
        : undefined;
      if (prodWrittenAt === undefined && fleet.clusters["prod-eu"]?.writes.length) prodWrittenAt = fleet.now;
      fleet.now += 1000;
    }
    expect(fleet.status.phase).toBe("Succeeded");
    expect(fleet.status.waves?.map((w) => w.phase)).toEqual(["Succeeded", "Succeeded"]);
    expect(fleet.status.waves?.[1]?.clusters.map((c) => c.id)).toEqual(["prod-eu", "prod-us"]);
    for (const c of Object.values(fleet.clusters)) {
      expect(c.flag?.spec.defaultValue).toBe("true");
      expect(c.writes).toHaveLength(1);
    }
    // The second wave was written only once the first had baked its 30 s.
    expect(stagingBakedUntil).toBeDefined();
    expect(prodWrittenAt).toBeGreaterThanOrEqual(stagingBakedUntil ?? Infinity);
  });

  it("halts on a crash in the first wave, rolls it back and never touches the second", () => {
    const fleet = new Fleet(
      {
        staging: cluster({ env: "staging" }, (value) => (value === "true" ? crashing : healthy("web-1"))),
        "prod-eu": cluster({ env: "prod" }),
      },
      twoWaves(30),
    );
    const end = fleet.runToEnd();
    expect(end.phase).toBe("RolledBack");
    expect(end.message).toContain("web-new: CrashLoopBackOff after the change");
    expect(end.waves?.map((w) => w.phase)).toEqual(["RolledBack", "Pending"]);
    expect(fleet.clusters["staging"]?.flag?.spec).toEqual(FLAG);
    expect(fleet.clusters["prod-eu"]?.writes).toEqual([]);
    expect(fleet.decisions.flatMap((d) => d.events.map((e) => e.reason))).toEqual(
      expect.arrayContaining(["WaveStarted", "GateFailed", "GateFailed"]),
    );
  });

  it("bakes from when the wave is delivered and healthy: a rollout slower than the bake does not eat it", () => {
    let healthyFrom = Infinity;
    const slow = (value: string): ObservedWorkload =>
      value === "true" && fleet.now < healthyFrom ? { ...healthy("web-new"), updated: 0 } : healthy("web-1");
    const fleet = new Fleet(
      { a: cluster({}, slow) },
      { ...twoWaves(30), waves: [{ clusters: ["a"], bakeSeconds: 30 }] },
    );
    healthyFrom = fleet.now + 45_000;
    const end = fleet.runToEnd();
    expect(end.phase).toBe("Succeeded");
    // Delivered at once, rolled out 45 s later, then 30 s of bake.
    expect(end.waves?.[0]?.bakeUntil).toBe("2026-11-27T10:01:15.000Z");
    expect(Date.parse(end.finishedAt ?? "")).toBeGreaterThanOrEqual(Date.parse("2026-11-27T10:01:15.000Z"));
  });

  it("counts restarts since the change, not the ones a pod had before", () => {
    const fleet = new Fleet(
      {
        staging: cluster({ env: "staging" }, () => healthy("web-1", 5)),
        "prod-eu": cluster({ env: "prod" }),
      },
      twoWaves(5),
    );
    expect(fleet.runToEnd().phase).toBe("Succeeded");
    const restarting = new Fleet(
      {
        staging: cluster({ env: "staging" }, (value) => healthy("web-1", value === "true" ? 6 : 5)),
        "prod-eu": cluster({ env: "prod" }),
      },
      twoWaves(5),
    );
    const end = restarting.runToEnd();
    expect(end.phase).toBe("RolledBack");
    expect(end.message).toContain("web-1: restarted 1 time after the change");
  });

  it("removes on rollback a field the flag did not have before", () => {
    const fleet = new Fleet(
      { a: cluster({}, (value) => (value === "on" ? crashing : healthy("web-1"))) },
      {
        flag: { namespace: "shop", name: "checkout" },
        change: { defaultValue: "on", variants: { on: "on", off: "off" }, defaultVariant: "on" },
        waves: [{ clusters: ["a"] }],
      },
    );
    fleet.at("a").flag = {
      spec: { ...FLAG, type: "string", defaultValue: "off" },
      generation: 1,
      observedGeneration: 1,
    };
    const end = fleet.runToEnd();
    expect(end.phase).toBe("RolledBack");
    expect(fleet.clusters["a"]?.flag?.spec).toEqual({ ...FLAG, type: "string", defaultValue: "off" });
  });

  it("neither repeats a wave nor skips its gate when the operator dies after recording, before writing", () => {
    const fleet = new Fleet(
      { staging: cluster({ env: "staging" }), "prod-eu": cluster({ env: "prod" }) },
      twoWaves(10),
    );
    const first = fleet.round({ lose: true });
    expect(first.writes.map((w) => w.clusterId)).toEqual(["staging"]);
    expect(fleet.clusters["staging"]?.writes).toEqual([]);
    // The next operator reads the recorded status: it writes the change once, and bakes it.
    fleet.now += 1000;
    const again = fleet.round();
    expect(again.writes.map((w) => w.clusterId)).toEqual(["staging"]);
    expect(fleet.runToEnd().phase).toBe("Succeeded");
    expect(fleet.clusters["staging"]?.writes).toHaveLength(1);
    expect(fleet.clusters["prod-eu"]?.writes).toHaveLength(1);
  });

  it("waits for an unreachable cluster and fails the wave after the progress deadline", () => {
    const fleet = new Fleet(
      { a: cluster({}), b: cluster({}) },
      {
        flag: { namespace: "shop", name: "checkout" },
        change: { defaultValue: "true" },
        waves: [{ clusters: ["a", "b"], bakeSeconds: 10 }],
        progressDeadlineSeconds: 30,
      },
    );
    fleet.round();
    fleet.at("b").reachable = false;
    while (fleet.status.phase === "Progressing" && fleet.now < Date.parse("2026-11-27T10:10:00Z")) {
      fleet.now += 1000;
      fleet.round();
    }
    expect(fleet.status.phase).toBe("RollingBack");
    expect(fleet.status.message).toContain("cluster b is not reachable");
    // The wave never baked (b never delivered): it failed 30 s of deadline after it started, not before.
    expect(fleet.status.waves?.[0]?.finishedAt).toBe("2026-11-27T10:00:30.000Z");
    // The rollback waits for b, then restores it too.
    expect(fleet.round().writes.map((w) => w.clusterId)).toEqual(["a"]);
    fleet.now += 60_000;
    expect(fleet.round()).toMatchObject({ writes: [], status: { phase: "RollingBack" } });
    fleet.at("b").reachable = true;
    expect(fleet.runToEnd().phase).toBe("RolledBack");
    for (const c of Object.values(fleet.clusters)) expect(c.flag?.spec).toEqual(FLAG);
  });

  it("starts a scheduled plan once at its time, also when the operator was down across it", () => {
    const fleet = new Fleet(
      { a: cluster({}) },
      {
        flag: { namespace: "shop", name: "checkout" },
        change: { enabled: false },
        startAt: "2026-11-27T10:05:00Z",
        waves: [{ clusters: ["a"], bakeSeconds: 0 }],
      },
    );
    const scheduled = fleet.round();
    expect(fleet.status.phase).toBe("Scheduled");
    expect(scheduled.requeueAfterMs).toBe(300_000);
    expect(scheduled.writes).toEqual([]);
    fleet.now = Date.parse("2026-11-27T11:00:00Z"); // the operator was down at 10:05
    expect(fleet.runToEnd().phase).toBe("Succeeded");
    expect(fleet.clusters["a"]?.writes).toEqual([{ ...FLAG, enabled: false }]);
    fleet.now += 3_600_000;
    expect(fleet.round().writes).toEqual([]);
  });

  it("waits for approval when it touches a protected cluster, and a rejection ends it", () => {
    const clusters = () => ({
      staging: cluster({ env: "staging" }),
      "prod-eu": { ...cluster({ env: "prod" }), protected: true },
    });
    const fleet = new Fleet(clusters(), twoWaves(0));
    fleet.round();
    expect(fleet.status.phase).toBe("AwaitingApproval");
    expect(fleet.status.protectedClusters).toEqual(["prod-eu"]);
    expect(fleet.clusters["staging"]?.writes).toEqual([]);
    fleet.status.approval = {
      decision: "Approved",
      by: "bob",
      at: "2026-11-27T10:01:00Z",
      digest: planChangeDigest(fleet.spec),
    };
    expect(fleet.runToEnd().phase).toBe("Succeeded");

    const rejected = new Fleet(clusters(), twoWaves(0));
    rejected.round();
    rejected.status.approval = {
      decision: "Rejected",
      by: "bob",
      at: "2026-11-27T10:01:00Z",
      comment: "not today",
    };
    expect(rejected.round().status).toMatchObject({
      phase: "Rejected",
      message: "rejected by bob: not today",
    });
  });

  it("pauses before the next wave, skips a bake on request, and aborts into a rollback", () => {
    const fleet = new Fleet(
      { staging: cluster({ env: "staging" }), "prod-eu": cluster({ env: "prod" }) },
      {
        ...twoWaves(3600),
        paused: true,
      },
    );
    fleet.round();
    expect(fleet.status.phase).toBe("Paused");
    expect(fleet.clusters["staging"]?.writes).toEqual([]);
    fleet.spec = { ...fleet.spec, paused: false };
    fleet.round();
    fleet.now += 1000;
    fleet.round();
    expect(fleet.status.waves?.[0]?.phase).toBe("Baking");
    fleet.spec = { ...fleet.spec, skipBake: 0 };
    fleet.now += 1000;
    fleet.round();
    expect(fleet.status.waves?.[0]?.phase).toBe("Succeeded");
    expect(fleet.clusters["prod-eu"]?.writes).toHaveLength(1);
    fleet.spec = { ...fleet.spec, abort: true };
    const end = fleet.runToEnd();
    expect(end).toMatchObject({ phase: "RolledBack" });
    expect(end.conditions?.[0]?.reason).toBe("Aborted");
    expect(end.waves?.map((w) => w.phase)).toEqual(["RolledBack", "RolledBack"]);
    for (const c of Object.values(fleet.clusters)) expect(c.flag?.spec).toEqual(FLAG);
  });

  it("fails without writing when the waves cannot be resolved, the flag is missing or the change is invalid", () => {
    const unknown = new Fleet({ a: cluster({}) }, { ...twoWaves(), waves: [{ clusters: ["nope"] }] });
    expect(unknown.round().status).toMatchObject({
      phase: "Failed",
      message: "waves.0.clusters: no cluster nope is registered",
    });
    const overlap = new Fleet(
      { a: cluster({ env: "prod" }) },
      {
        ...twoWaves(),
        waves: [{ clusters: ["a"] }, { clusterSelector: { matchLabels: { env: "prod" } } }],
      },
    );
    expect(overlap.round().status.message).toBe("waves.1: holds cluster a, which waves.0 holds too");
    const missing = new Fleet(
      { a: { ...cluster({}), flag: undefined } },
      { ...twoWaves(), waves: [{ clusters: ["a"] }] },
    );
    expect(missing.runToEnd().message).toBe(
      "wave 0 failed its gate: cluster a: flag shop/checkout not found; nothing had been changed",
    );
    const invalid = new Fleet(
      { a: cluster({}) },
      { ...twoWaves(), change: { defaultValue: "yes" }, waves: [{ clusters: ["a"] }] },
    );
    const end = invalid.runToEnd();
    expect(end.phase).toBe("Failed");
    expect(end.message).toContain("change.defaultValue");
    expect(invalid.clusters["a"]?.writes).toEqual([]);
    const blocked = decidePlan({
      name: "checkout-on",
      spec: twoWaves(),
      generation: 1,
      status: {},
      now: new Date(),
      clusters: new Map(),
      observed: new Map(),
      blockedBy: "older",
    });
    expect(blocked.status.phase).toBe("Failed");
    expect(blocked.writes).toEqual([]);
  });
});
