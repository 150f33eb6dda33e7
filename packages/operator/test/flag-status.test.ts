import { planWorkload } from "@svc/core";
import { describe, expect, it } from "vitest";
import { CLUSTER, envFlag, workload } from "../../core/test/support/workloads.ts";
import { desiredFlagStatus, phaseChangeEvent, sameStatus } from "../src/flag-status.ts";

const at = new Date("2026-11-22T09:00:00.123Z");
const later = new Date("2026-11-22T10:00:00Z");
const web = workload("web", { labels: { app: "web" } });

describe("desiredFlagStatus", () => {
  it("lists the targets with their outcome, the phase and a Ready condition for the generation observed", () => {
    const flag = envFlag("beta", { app: "web" });
    const status = desiredFlagStatus(flag, [planWorkload(web, [flag], CLUSTER)], at);
    expect(status).toEqual({
      observedGeneration: 1,
      phase: "Pending",
      delivery: "envVar",
      targets: [
        expect.objectContaining({ kind: "Deployment", name: "web", delivered: false, outcome: "pending" }),
      ],
      conditions: [
        {
          type: "Ready",
          status: "False",
          observedGeneration: 1,
          lastTransitionTime: "2026-11-22T09:00:00Z",
          reason: "Pending",
          message: "some target workloads do not carry the flag yet",
        },
      ],
    });
  });

  it("keeps the condition's transition time while its status holds, so a resync writes nothing", () => {
    const flag = envFlag("beta", { app: "nothing" });
    const first = desiredFlagStatus(flag, [planWorkload(web, [flag], CLUSTER)], at);
    expect(first.phase).toBe("NoTargets");
    const again = desiredFlagStatus({ ...flag, status: first }, [planWorkload(web, [flag], CLUSTER)], later);
    expect(sameStatus(first, again)).toBe(true);
  });

  it("reports a json value that is not JSON, and a stored status that differs is rewritten", () => {
    const flag = envFlag("cfg", { app: "web" }, { type: "json", defaultValue: "{nope" });
    const status = desiredFlagStatus(flag, [planWorkload(web, [flag], CLUSTER)], at);
    expect(status.phase).toBe("Degraded");
    expect(status.message).toMatch(/not delivered/);
    expect(sameStatus(undefined, status)).toBe(false);
    expect(sameStatus({ ...status, phase: "Delivered" }, status)).toBe(false);
  });
});

describe("phaseChangeEvent", () => {
  it("records an event when the phase changes, a Warning when it degrades, none while it holds", () => {
    const flag = envFlag("cfg", { app: "web" }, { type: "json", defaultValue: "{nope" });
    const status = desiredFlagStatus(flag, [planWorkload(web, [flag], CLUSTER)], at);
    expect(phaseChangeEvent(flag, status, at)).toMatchObject({
      kind: "Event",
      type: "Warning",
      reason: "Degraded",
      involvedObject: { kind: "FeatureFlag", name: "cfg", namespace: "shop" },
    });
    expect(phaseChangeEvent({ ...flag, status }, status, later)).toBeUndefined();
  });
});
