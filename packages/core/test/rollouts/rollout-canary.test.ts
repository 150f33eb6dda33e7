// A wave over part of a cluster's workloads first (workloadPercent): which workloads, what each
// is delivered while the canary step lasts, and the plan's steps with a fake clock.
import { describe, expect, it } from "vitest";
import {
  applyTarget,
  CANARY_ANNOTATION,
  canaryAnnotationValue,
  chooseCanary,
  decidePlan,
  heldSpec,
  isCanaryPod,
  isCanaryWorkload,
  planWorkload,
  readCanary,
  type ClusterObservation,
  type FeatureFlagResource,
  type FeatureFlagSpec,
  type FlagCanary,
  type FlagRolloutSpec,
  type FlagRolloutStatus,
  type ObservedWorkload,
  type Workload,
} from "../../src/index.ts";

const ENV_FLAG: FeatureFlagSpec = {
  type: "boolean",
  defaultValue: "false",
  delivery: { envVar: { selector: { matchLabels: { tier: "web" } }, name: "CHECKOUT" } },
};

const CANARY: FlagCanary = {
  plan: "checkout-on",
  workloads: [{ kind: "Deployment", name: "api", matchLabels: { app: "api" } }],
  held: { set: { defaultValue: "false" }, remove: [] },
};

function deployment(name: string): Workload {
  return {
    kind: "Deployment",
    object: {
      metadata: { name, namespace: "shop", labels: { tier: "web" } },
      spec: {
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name, tier: "web" } },
          spec: { containers: [{ name: "app" }] },
        },
      },
    },
  };
}

function flag(spec: FeatureFlagSpec, annotations?: Record<string, string>): FeatureFlagResource {
  return {
    apiVersion: "svc.io/v1alpha1",
    kind: "FeatureFlag",
    metadata: { name: "checkout", namespace: "shop", ...(annotations ? { annotations } : {}) },
    spec,
  };
}

const envOf = (workload: Workload, flags: FeatureFlagResource[]) =>
  planWorkload(workload, flags, { id: "local", labels: {} }).env.find((e) => e.name === "CHECKOUT")?.value;

describe("choosing a cluster's canary workloads", () => {
  const named = (count: number) =>
    Array.from({ length: count }, (_, i) => ({
      kind: "Deployment",
      name: `w-${String(i).padStart(3, "0")}`,
    }));

  it("takes the first percent in kind and name order, rounded up", () => {
    const workloads = named(20).reverse();
    expect(chooseCanary(workloads, 10)?.map((w) => w.name)).toEqual(["w-000", "w-001"]);
    expect(chooseCanary(named(21), 10)?.map((w) => w.name)).toEqual(["w-000", "w-001", "w-002"]);
    expect(chooseCanary([{ kind: "StatefulSet", name: "a" }, ...named(3)], 25)?.map((w) => w.kind)).toEqual([
      "Deployment",
    ]);
  });

  it("takes at least one, and none when that would be every workload (no step to make)", () => {
    expect(chooseCanary(named(2), 10)?.map((w) => w.name)).toEqual(["w-000"]);
    expect(chooseCanary(named(1), 10)).toBeUndefined();
    expect(chooseCanary(named(0), 50)).toBeUndefined();
    expect(chooseCanary(named(3), 99)).toBeUndefined();
  });

  it("names at most 1,000 workloads of a cluster", () => {
    expect(chooseCanary(named(5000), 50)).toHaveLength(1000);
  });
});

describe("the canary annotation", () => {
  it("reads back what the operator writes, and ignores what it would not", () => {
    expect(readCanary({ [CANARY_ANNOTATION]: canaryAnnotationValue(CANARY) })).toEqual(CANARY);
    expect(readCanary(undefined)).toBeUndefined();
    for (const bad of [
      "not json",
      "[]",
      JSON.stringify({ ...CANARY, plan: 3 }),
      JSON.stringify({ ...CANARY, held: { set: {} } }),
      JSON.stringify({ ...CANARY, workloads: [{ kind: "Deployment", name: "api" }] }),
      JSON.stringify({
        ...CANARY,
        workloads: [{ kind: "Deployment", name: "api", matchLabels: { app: 1 } }],
      }),
    ])
      expect(readCanary({ [CANARY_ANNOTATION]: bad }), bad).toBeUndefined();
  });

  it("knows a canary workload by kind and name, and a canary pod by its labels", () => {
    expect(isCanaryWorkload(CANARY, "Deployment", "api")).toBe(true);
    expect(isCanaryWorkload(CANARY, "StatefulSet", "api")).toBe(false);
    expect(isCanaryPod(CANARY, { app: "api", "pod-template-hash": "7c9f" })).toBe(true);
    expect(isCanaryPod(CANARY, { app: "web" })).toBe(false);
    expect(
      isCanaryPod({ ...CANARY, workloads: [{ kind: "Deployment", name: "x", matchLabels: {} }] }, {}),
    ).toBe(false);
  });

  it("delivers the change to the canary workloads and the old value to every other", () => {
    const changed = { ...ENV_FLAG, defaultValue: "true" };
    const flags = [flag(changed, { [CANARY_ANNOTATION]: canaryAnnotationValue(CANARY) })];
    expect(envOf(deployment("api"), flags)).toBe("true");
    expect(envOf(deployment("web"), flags)).toBe("false");
    // Without the annotation (the wave reached every workload) all have the change.
    expect(envOf(deployment("web"), [flag(changed)])).toBe("true");
    // Held fields are written over the spec, removed ones taken away.
    expect(
      heldSpec({ ...changed, enabled: false }, { ...CANARY, held: { set: {}, remove: ["enabled"] } }),
    ).toEqual(changed);
  });
});

// One cluster with several workloads; each workload answers for the value it is delivered.
class CanaryCluster {
  now = Date.parse("2026-11-27T10:00:00Z");
  status: FlagRolloutStatus = {};
  spec: FeatureFlagSpec;
  canary: FlagCanary | undefined;
  generation = 1;
  writes: { spec: FeatureFlagSpec; canary: FlagCanary | undefined }[] = [];
  /** Workloads that crash once their value is "true". */
  readonly crashing: Set<string>;
  readonly names: string[];
  readonly plan: FlagRolloutSpec;

  constructor(
    plan: FlagRolloutSpec,
    names: string[],
    options: { crashing?: string[]; spec?: FeatureFlagSpec } = {},
  ) {
    this.plan = plan;
    this.names = names;
    this.crashing = new Set(options.crashing ?? []);
    this.spec = options.spec ?? ENV_FLAG;
  }

  valueOf(name: string): string {
    const canary = this.canary;
    return canary === undefined || isCanaryWorkload(canary, "Deployment", name)
      ? this.spec.defaultValue
      : heldSpec(this.spec, canary).defaultValue;
  }

  workload(name: string): ObservedWorkload {
    const broken = this.crashing.has(name) && this.valueOf(name) === "true";
    return {
      kind: "Deployment",
      name,
      generation: 2,
      observedGeneration: 2,
      desired: 1,
      updated: 1,
      ready: broken ? 0 : 1,
      progressDeadlineExceeded: false,
      pods: [{ name: `${name}-1`, ready: !broken, restarts: broken ? 1 : 0 }],
      matchLabels: { app: name },
    };
  }

  round(lose = false): void {
    const observation: ClusterObservation = {
      reachable: true,
      flag: {
        spec: this.spec,
        canary: this.canary,
        generation: this.generation,
        observedGeneration: this.generation,
        phase: "Delivered",
        message: undefined,
      },
      workloads: this.names.map((n) => this.workload(n)),
    };
    const decision = decidePlan({
      name: "checkout-on",
      spec: this.plan,
      generation: 1,
      status: this.status,
      now: new Date(this.now),
      clusters: new Map([["prod", { labels: {}, protected: false }]]),
      observed: new Map([["prod", observation]]),
    });
    this.status = decision.status;
    if (lose) return;
    for (const write of decision.writes) {
      this.spec = applyTarget(this.spec, write.target);
      this.canary = write.target.canary;
      this.generation++;
      this.writes.push({ spec: this.spec, canary: this.canary });
    }
  }

  run(maxRounds = 300): FlagRolloutStatus {
    for (
      let i = 0;
      i < maxRounds && !["Succeeded", "RolledBack", "Failed"].includes(this.status.phase ?? "");
      i++
    ) {
      this.round();
      this.now += 1000;
    }
    return this.status;
  }
}

const percentPlan = (workloadPercent = 10): FlagRolloutSpec => ({
  flag: { namespace: "shop", name: "checkout" },
  change: { defaultValue: "true" },
  waves: [{ clusters: ["prod"], bakeSeconds: 20, workloadPercent }],
});

const TEN = Array.from({ length: 10 }, (_, i) => `w-${i}`);

describe("a wave over part of the workloads first", () => {
  it("changes the canary, bakes it, then changes every workload and bakes again", () => {
    const cluster = new CanaryCluster(percentPlan(20), TEN);
    cluster.round();
    const wave = () => cluster.status.waves?.[0];
    expect(wave()?.stage).toBe("Canary");
    expect(cluster.canary?.workloads.map((w) => w.name)).toEqual(["w-0", "w-1"]);
    expect(cluster.canary?.held).toEqual({ set: { defaultValue: "false" }, remove: [] });
    expect(cluster.canary?.plan).toBe("checkout-on");
    expect(TEN.map((n) => cluster.valueOf(n)).filter((v) => v === "true")).toHaveLength(2);
    const records = wave()?.clusters[0]?.workloads ?? [];
    expect(records.filter((w) => w.canary).map((w) => w.name)).toEqual(["w-0", "w-1"]);
    expect(records.find((w) => w.name === "w-5")?.health).toBe("Waiting");

    // The canary bakes its 20 s before the rest is changed.
    let widenedAt: number | undefined;
    for (let i = 0; i < 100 && cluster.status.phase !== "Succeeded"; i++) {
      cluster.now += 1000;
      cluster.round();
      if (widenedAt === undefined && cluster.canary === undefined) widenedAt = cluster.now;
    }
    expect(cluster.status.phase).toBe("Succeeded");
    expect(widenedAt).toBeDefined();
    const bakeStarted = Date.parse("2026-11-27T10:00:01Z");
    expect(widenedAt).toBeGreaterThanOrEqual(bakeStarted + 20_000);
    expect(wave()?.stage).toBe("All");
    expect(TEN.every((n) => cluster.valueOf(n) === "true")).toBe(true);
    // Two writes: the change with its canary, then the canary taken away.
    expect(cluster.writes.map((w) => w.canary?.workloads.length)).toEqual([2, undefined]);
    expect(wave()?.clusters[0]?.workloads?.every((w) => w.health === "Healthy")).toBe(true);
  });

  it("halts when a canary workload crashes and never changes the others", () => {
    const cluster = new CanaryCluster(percentPlan(10), TEN, { crashing: ["w-0"] });
    const status = cluster.run();
    expect(status.phase).toBe("RolledBack");
    expect(status.message).toMatch(/w-0-1: restarted 1 time after the change/);
    // Rolled back: the old value, the annotation gone; w-1 … w-9 never had the new value.
    expect(cluster.spec.defaultValue).toBe("false");
    expect(cluster.canary).toBeUndefined();
    expect(cluster.writes).toHaveLength(2);
    expect(cluster.writes[0]?.canary?.workloads.map((w) => w.name)).toEqual(["w-0"]);
  });

  it("halts when a workload outside the canary crashes once every workload has the change", () => {
    const cluster = new CanaryCluster(percentPlan(10), TEN, { crashing: ["w-7"] });
    const status = cluster.run();
    expect(status.phase).toBe("RolledBack");
    expect(status.message).toMatch(/w-7-1/);
    expect(cluster.writes.map((w) => w.canary === undefined)).toEqual([false, true, true]);
  });

  it("writes the same canary again when the operator died between recording and writing", () => {
    const cluster = new CanaryCluster(percentPlan(10), TEN);
    cluster.round(true);
    expect(cluster.writes).toHaveLength(0);
    cluster.now += 1000;
    cluster.round();
    expect(cluster.writes).toHaveLength(1);
    expect(cluster.writes[0]?.canary?.workloads.map((w) => w.name)).toEqual(["w-0"]);
    expect(cluster.run().phase).toBe("Succeeded");
    expect(cluster.writes).toHaveLength(2);
  });

  it("has no canary step where the percent is every workload", () => {
    const cluster = new CanaryCluster(percentPlan(10), ["w-0"]);
    expect(cluster.run().phase).toBe("Succeeded");
    expect(cluster.status.waves?.[0]?.stage).toBeUndefined();
    expect(cluster.writes.map((w) => w.canary)).toEqual([undefined]);
  });

  it("refuses a configMap flag, whose one key serves every workload, and changes nothing", () => {
    const spec: FeatureFlagSpec = {
      ...ENV_FLAG,
      delivery: {
        configMap: { selector: { matchLabels: { tier: "web" } }, configMapName: "flags", key: "checkout" },
      },
    };
    const cluster = new CanaryCluster(percentPlan(10), TEN, { spec });
    const status = cluster.run();
    expect(status.phase).toBe("Failed");
    expect(status.message).toMatch(/waves\.0\.workloadPercent: the flag is delivered by configMap/);
    expect(cluster.writes).toHaveLength(0);
  });
});
