import { describe, expect, it } from "vitest";
import { flagPhase, flagTargets, planWorkload } from "../src/index.ts";
import { applyPlan, envFlag, workload } from "./support/workloads.ts";

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
    const converged = applyPlan(deployment, planWorkload(deployment, [checkout]));
    const plans = [daemonSet, conflicting, converged, workload("x", { labels: web, namespace: "other" })].map(
      (w) => planWorkload(w, [checkout]),
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
