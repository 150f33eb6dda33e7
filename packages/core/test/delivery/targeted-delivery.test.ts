// Targeted envVar and configMap flags: each workload gets the value flagd's engine evaluates
// for its context in its cluster; a ConfigMap's value is evaluated once, for the ConfigMap;
// plans hold values, so a rule change that changes no value restarts nothing.
import { describe, expect, it } from "vitest";
import { compileFlag, evaluateFlag, workloadContext } from "../../src/targeting/flagd.ts";
import {
  indexFlags,
  planConfigMaps,
  planWorkload,
  previewFlag,
  type DeliveryCluster,
  type FeatureFlagResource,
  type FeatureFlagSpec,
} from "../../src/index.ts";
import { applyPlan, flag, workload } from "../support/workloads.ts";

const web = { app: "web" };
const east: DeliveryCluster = { id: "east", labels: { region: "eu" } };
const west: DeliveryCluster = { id: "west", labels: {} };
const variants = { variants: { a: "a", b: "b" }, defaultVariant: "b", defaultValue: "b" };
const perCluster = { if: [{ "==": [{ var: "cluster" }, "east"] }, "a", "b"] };

const envFlag = (name: string, spec: Partial<FeatureFlagSpec>): FeatureFlagResource =>
  flag(name, { envVar: { name: "MODE", selector: { matchLabels: web } } }, { ...variants, ...spec });
const configMapFlag = (name: string, spec: Partial<FeatureFlagSpec>): FeatureFlagResource =>
  flag(
    name,
    { configMap: { configMapName: "web-flags", key: "mode", selector: { matchLabels: web } } },
    { ...variants, ...spec },
  );
const webs = (count: number) =>
  Array.from({ length: count }, (_, i) =>
    workload(`web-${String(i).padStart(2, "0")}`, { labels: { ...web, tier: i % 2 ? "back" : "front" } }),
  );
const first = workload("web-00", { labels: { ...web, tier: "front" } });
const modeOf = (flags: FeatureFlagResource[], cluster: DeliveryCluster, target = first) =>
  planWorkload(target, flags, cluster).env.find((e) => e.name === "MODE")?.value;

describe("targeted envVar delivery", () => {
  it("gives the same flag a different value per cluster and per cluster label", () => {
    expect(modeOf([envFlag("mode", { targeting: perCluster })], east)).toBe("a");
    expect(modeOf([envFlag("mode", { targeting: perCluster })], west)).toBe("b");
    const byRegion = { if: [{ "==": [{ var: "clusterLabels.region" }, "eu"] }, "a", "b"] };
    expect(modeOf([envFlag("mode", { targeting: byRegion })], east)).toBe("a");
    expect(modeOf([envFlag("mode", { targeting: byRegion })], west)).toBe("b");
  });

  it("evaluates each workload with its own context: namespace, kind, name, labels", () => {
    const byLabel = { if: [{ "==": [{ var: "labels.tier" }, "front"] }, "a", "b"] };
    const flags = [envFlag("mode", { targeting: byLabel })];
    const index = indexFlags(flags);
    expect(webs(4).map((w) => modeOf(flags, east, w))).toEqual(["a", "b", "a", "b"]);
    expect(webs(4).map((w) => planWorkload(w, index, east).env[0]?.value)).toEqual(["a", "b", "a", "b"]);
    const byIdentity = {
      if: [
        {
          and: [
            { "==": [{ var: "namespace" }, "shop"] },
            { "==": [{ var: "kind" }, "Deployment"] },
            { "==": [{ var: "name" }, "web-01"] },
          ],
        },
        "a",
        "b",
      ],
    };
    const named = [envFlag("mode", { targeting: byIdentity })];
    expect(webs(3).map((w) => modeOf(named, east, w))).toEqual(["b", "a", "b"]);
  });

  it("splits a fractional rollout by workload exactly as flagd buckets the workload's targetingKey", () => {
    const rollout = envFlag("mode", {
      targeting: {
        fractional: [
          ["a", 50],
          ["b", 50],
        ],
      },
    });
    const compiled = compileFlag("mode", rollout.spec, true);
    const targets = webs(40);
    const values = targets.map((w) => modeOf([rollout], east, w));
    const flagd = targets.map(
      (w) =>
        evaluateFlag(
          "mode",
          compiled,
          workloadContext({
            cluster: "east",
            clusterLabels: east.labels,
            namespace: "shop",
            kind: "Deployment",
            name: w.object.metadata?.name ?? "",
            labels: w.object.metadata?.labels ?? {},
          }),
        ).value,
    );
    expect(values).toEqual(flagd);
    expect(new Set(values)).toEqual(new Set(["a", "b"]));
    // The bucket is keyed by the flag's evaluation key: another key splits differently.
    const renamed = { ...rollout, spec: { ...rollout.spec, key: "other" } };
    expect(targets.map((w) => modeOf([renamed], east, w))).not.toEqual(values);
  });

  it("delivers the defaultValue when the rule fails, and says so in the flag's outcome", () => {
    const failing = envFlag("mode", { targeting: { if: [true, { var: "labels" }, "a"] } });
    const plan = planWorkload(first, [failing], east);
    expect(plan.env[0]?.value).toBe("b");
    expect(plan.flags[0]?.message).toMatch(/^targeting failed \(GENERAL/);
    expect(plan.flags[0]?.value).toBe("b");
  });
});

describe("targeting changes", () => {
  const byTier = { if: [{ "==": [{ var: "labels.tier" }, "front"] }, "a", "b"] };
  const targets = webs(6);

  it("a rule that gives every workload the same value restarts nothing", () => {
    const stored = envFlag("mode", { targeting: byTier });
    const converged = targets.map((w) => applyPlan(w, planWorkload(w, [stored], east)));
    // Another rule, other variants, same values everywhere.
    const rewritten = envFlag("mode", {
      variants: { front: "a", rest: "b" },
      defaultVariant: "rest",
      targeting: { if: [{ in: [{ var: "labels.tier" }, ["front", "middle"]] }, "front", "rest"] },
    });
    for (const w of converged) {
      const plan = planWorkload(w, [rewritten], east);
      expect(plan.inSync).toBe(true);
      expect(plan.restarts).toEqual({ restarts: false, reasons: [] });
    }
    const preview = previewFlag({
      candidate: rewritten,
      workloads: converged,
      namespaceFlags: [stored],
      cluster: east,
    });
    expect(preview.filter((e) => e.restarts)).toEqual([]);
    expect(preview.map((e) => e.value)).toEqual(["a", "b", "a", "b", "a", "b"]);
  });

  it("restarts exactly the workloads whose value changes, as the preview lists them", () => {
    const stored = envFlag("mode", { targeting: byTier });
    const converged = targets.map((w) => applyPlan(w, planWorkload(w, [stored], east)));
    const candidate = envFlag("mode", {
      targeting: { if: [{ in: [{ var: "name" }, ["web-00", "web-01"]] }, "a", "b"] },
    });
    const preview = previewFlag({ candidate, workloads: converged, namespaceFlags: [stored], cluster: east });
    expect(preview.filter((e) => e.restarts).map((e) => e.name)).toEqual(["web-01", "web-02", "web-04"]);
    expect(preview.map((e) => e.value)).toEqual(["a", "a", "b", "b", "b", "b"]);
    const restarted = converged.filter((w) => planWorkload(w, [candidate], east).restarts.restarts);
    expect(restarted.map((w) => w.object.metadata?.name)).toEqual(["web-01", "web-02", "web-04"]);
  });
});

describe("targeted configMap delivery", () => {
  it("evaluates once for the ConfigMap in its cluster: one value for every workload that mounts it", () => {
    const perClusterMap = configMapFlag("mode", { targeting: perCluster });
    expect(planConfigMaps([perClusterMap], east)[0]?.data).toEqual({ mode: "a" });
    expect(planConfigMaps([perClusterMap], west)[0]?.data).toEqual({ mode: "b" });
    // A rule on workload labels sees the ConfigMap's context (no labels): the same value for all.
    const byTier = configMapFlag("mode", {
      targeting: { if: [{ "==": [{ var: "labels.tier" }, "front"] }, "a", "b"] },
    });
    expect(planConfigMaps([byTier], east)[0]?.data).toEqual({ mode: "b" });
    expect(webs(4).map((w) => planWorkload(w, [byTier], east).flags[0]?.value)).toEqual(["b", "b", "b", "b"]);
    const byName = configMapFlag("mode", {
      targeting: { if: [{ "==": [{ var: "name" }, "web-flags"] }, "a", "b"] },
    });
    expect(planConfigMaps([byName], east)[0]?.data).toEqual({ mode: "a" });
  });
});
