import { describe, expect, it } from "vitest";
import {
  flagPhase,
  flagStatus,
  flagTargets,
  phaseChangeEvent,
  planWorkload,
  sameStatus,
  STATUS_TARGETS_MAX,
} from "../../src/index.ts";
import { CLUSTER, applyPlan, envFlag, workload } from "../support/workloads.ts";

const web = { app: "web" };
const checkout = envFlag("checkout", web);
const deployment = workload("web", { labels: web });
const daemonSet = workload("agent", { kind: "DaemonSet", labels: web });
const conflicting = workload("api", {
  labels: web,
  containers: [{ name: "app", env: [{ name: "FLAG_CHECKOUT", value: "mine" }] }],
});

describe("flagTargets", () => {
  it("lists every matching workload of the flag's namespace with its outcome, by kind then name", () => {
    const converged = applyPlan(deployment, planWorkload(deployment, [checkout], CLUSTER));
    const plans = [daemonSet, conflicting, converged, workload("x", { labels: web, namespace: "other" })].map(
      (w) => planWorkload(w, [checkout], CLUSTER),
    );
    const hash = plans[2]?.flagsHash;
    expect(flagTargets(checkout, plans)).toEqual([
      {
        kind: "Deployment",
        name: "api",
        delivered: false,
        outcome: "conflict",
        message: "container app defines FLAG_CHECKOUT itself; svc does not overwrite it",
      },
      { kind: "Deployment", name: "web", delivered: true, outcome: "delivered", hash },
      { kind: "DaemonSet", name: "agent", delivered: false, outcome: "pending", hash },
    ]);
  });
});

describe("flagPhase", () => {
  const target = (outcome: "delivered" | "pending" | "conflict" | "invalid" | "disabled") => ({
    outcome,
    delivered: outcome === "delivered",
  });

  it("is NoTargets, Degraded, Pending or Delivered, in that precedence", () => {
    expect(flagPhase([])).toBe("NoTargets");
    expect(flagPhase([target("delivered"), target("pending"), target("conflict")])).toBe("Degraded");
    expect(flagPhase([target("invalid")])).toBe("Degraded");
    expect(flagPhase([target("delivered"), target("pending")])).toBe("Pending");
    expect(flagPhase([target("delivered"), target("disabled")])).toBe("Delivered");
  });

  it("reads targets written without an outcome by their delivered field", () => {
    expect(flagPhase([{ delivered: true }])).toBe("Delivered");
    expect(flagPhase([{ delivered: false }])).toBe("Pending");
  });
});

describe("flagStatus", () => {
  const t0 = new Date("2026-11-22T08:00:00.500Z");
  const t1 = new Date("2026-11-22T09:00:00Z");
  const generation3 = { ...checkout, metadata: { ...checkout.metadata, generation: 3 } };

  it("says where the flag is, with a Ready condition", () => {
    const converged = applyPlan(deployment, planWorkload(deployment, [checkout], CLUSTER));
    const status = flagStatus(generation3, [planWorkload(converged, [checkout], CLUSTER)], t0);
    expect(status).toEqual({
      observedGeneration: 3,
      phase: "Delivered",
      delivery: "envVar",
      targets: [
        {
          kind: "Deployment",
          name: "web",
          delivered: true,
          outcome: "delivered",
          hash: planWorkload(converged, [checkout], CLUSTER).flagsHash,
        },
      ],
      message: "delivered to 1 workload",
      conditions: [
        {
          type: "Ready",
          status: "True",
          observedGeneration: 3,
          reason: "Delivered",
          message: "delivered to 1 workload",
          lastTransitionTime: "2026-11-22T08:00:00Z",
        },
      ],
    });
    // The transition time holds while the status does.
    const again = flagStatus({ ...generation3, status }, [planWorkload(converged, [checkout], CLUSTER)], t1);
    expect(again.conditions?.[0]?.lastTransitionTime).toBe("2026-11-22T08:00:00Z");
    const pending = flagStatus(
      { ...generation3, status },
      [planWorkload(deployment, [checkout], CLUSTER)],
      t1,
    );
    expect(pending).toMatchObject({ phase: "Pending", message: "1 of 1 targets not updated yet" });
    expect(pending.conditions?.[0]).toMatchObject({
      status: "False",
      lastTransitionTime: "2026-11-22T09:00:00Z",
    });
  });

  it("names the targets in conflict, and the namespace when nothing matches", () => {
    const degraded = flagStatus(checkout, [planWorkload(conflicting, [checkout], CLUSTER)], t0);
    expect(degraded.phase).toBe("Degraded");
    expect(degraded.message).toBe(
      "1 of 1 targets cannot get the flag: Deployment api: container app defines FLAG_CHECKOUT itself; svc does not overwrite it",
    );
    expect(flagStatus(checkout, [], t0)).toMatchObject({
      phase: "NoTargets",
      message: "no Deployment, StatefulSet or DaemonSet of namespace shop matches the selector",
      targets: [],
      // Nothing to deliver to: `kubectl wait --for=condition=Ready` does not wait forever.
      conditions: [{ type: "Ready", status: "True", reason: "NoTargets" }],
    });
  });

  it("is the same status on a resync that changes nothing, so nothing is written", () => {
    const first = flagStatus(checkout, [planWorkload(deployment, [checkout], CLUSTER)], t0);
    const again = flagStatus(
      { ...checkout, status: first },
      [planWorkload(deployment, [checkout], CLUSTER)],
      t1,
    );
    expect(sameStatus(first, again)).toBe(true);
    expect(sameStatus(undefined, first)).toBe(false);
    expect(sameStatus({ ...first, phase: "Delivered" }, first)).toBe(false);
  });

  it("is Degraded for a value that cannot be delivered, even without targets", () => {
    const broken = envFlag("settings", web, { type: "json", defaultValue: "{" });
    const status = flagStatus(broken, [], t0);
    expect(status.phase).toBe("Degraded");
    expect(status.message).toBe(
      "defaultValue must be valid JSON text for a json flag; the flag is not delivered",
    );
  });

  it("lists at most STATUS_TARGETS_MAX targets, problems first, and says how many are left out", () => {
    const many = Array.from({ length: STATUS_TARGETS_MAX + 5 }, (_, i) =>
      planWorkload(workload(`w${String(i).padStart(4, "0")}`, { labels: web }), [checkout], CLUSTER),
    );
    const bad = planWorkload(
      workload("zz-conflict", {
        labels: web,
        containers: [{ name: "app", env: [{ name: "FLAG_CHECKOUT", value: "x" }] }],
      }),
      [checkout],
      CLUSTER,
    );
    const status = flagStatus(checkout, [...many, bad], t0);
    expect(status.targets).toHaveLength(STATUS_TARGETS_MAX);
    expect(status.targets?.some((t) => t.name === "zz-conflict")).toBe(true);
    expect(status.message).toMatch(/ \(6 targets not listed\)$/);
  });
});

describe("phaseChangeEvent", () => {
  const at = new Date("2026-11-22T09:00:00.123Z");
  it("records an event when the phase changes, a Warning when it degrades, none while it holds", () => {
    const broken = envFlag("cfg", web, { type: "json", defaultValue: "{nope" });
    const status = flagStatus(broken, [planWorkload(deployment, [broken], CLUSTER)], at);
    expect(phaseChangeEvent(broken, status, at)).toMatchObject({
      kind: "Event",
      type: "Warning",
      reason: "Degraded",
      message: status.message,
      involvedObject: { kind: "FeatureFlag", name: "cfg", namespace: "shop" },
      firstTimestamp: "2026-11-22T09:00:00Z",
    });
    expect(phaseChangeEvent({ ...broken, status }, status, at)).toBeUndefined();
  });
});
