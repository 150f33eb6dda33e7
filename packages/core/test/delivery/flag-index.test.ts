// flagPlanningKey: what of a flag planning reads. The operator keeps a namespace's plans while
// every flag's key stays, so a key that missed a change would leave workloads undelivered.
import { describe, expect, it } from "vitest";
import { flagPlanningKey, planWorkload, type FeatureFlagResource } from "../../src/index.ts";
import { CLUSTER, envFlag, workload } from "../support/workloads.ts";

const delivered = (generation: number): FeatureFlagResource => {
  const flag = envFlag("beta", { app: "web" });
  return { ...flag, metadata: { ...flag.metadata, uid: "u1", generation, resourceVersion: "7" } };
};

describe("flagPlanningKey", () => {
  it("stays through a status write and a new resourceVersion, and plans stay equal", () => {
    const before = delivered(3);
    const after: FeatureFlagResource = {
      ...before,
      metadata: { ...before.metadata, resourceVersion: "8" },
      status: { phase: "Delivered", observedGeneration: 3 },
    };
    expect(flagPlanningKey(after)).toBe(flagPlanningKey(before));
    const web = workload("web", { labels: { app: "web" } });
    expect(planWorkload(web, [after], CLUSTER)).toEqual(planWorkload(web, [before], CLUSTER));
  });

  it("changes with the generation, the annotations, the deletion and the uid", () => {
    const base = delivered(3);
    const keys = [
      base,
      delivered(4),
      { ...base, metadata: { ...base.metadata, annotations: { canary: "web" } } },
      { ...base, metadata: { ...base.metadata, deletionTimestamp: "2026-11-27T00:00:00Z" } },
      { ...base, metadata: { ...base.metadata, uid: "u2" } },
    ].map(flagPlanningKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("reads the whole spec of a flag without a generation (not from an API server)", () => {
    const withGeneration = envFlag("beta", { app: "web" });
    const flag = { ...withGeneration, metadata: { ...withGeneration.metadata, generation: undefined } };
    expect(flagPlanningKey({ ...flag, spec: { ...flag.spec, defaultValue: "off" } })).not.toBe(
      flagPlanningKey(flag),
    );
  });
});
