import { describe, expect, it } from "vitest";
import {
  FLAGS_HASH_ANNOTATION,
  flagsHash,
  MANAGED_ENV_ANNOTATION,
  planWorkload,
  type FeatureFlagResource,
  type Workload,
} from "../../src/index.ts";
import { CLUSTER, applyPlan, configMapFlag, envFlag, sidecarFlag, workload } from "../support/workloads.ts";

const web = { app: "web" };
const webWorkload = (options: Parameters<typeof workload>[1] = {}) =>
  workload("web", { labels: web, ...options });

/** Plans, applies, and returns the workload as the operator leaves it. */
function deliver(target: Workload, flags: FeatureFlagResource[]): Workload {
  return applyPlan(target, planWorkload(target, flags, CLUSTER));
}

describe("planWorkload: envVar", () => {
  const checkout = envFlag("new-checkout", web, { defaultValue: "blue" });

  it("sets the variable in every container, not in init containers or the sidecar", () => {
    const target = webWorkload({
      containers: [{ name: "app" }, { name: "log" }, { name: "svc-flags" }],
      initContainers: [{ name: "migrate" }],
    });
    const plan = planWorkload(target, [checkout, sidecarFlag("banner", web)], CLUSTER);
    expect(plan.env).toEqual([{ name: "FLAG_NEW_CHECKOUT", value: "blue", flag: "new-checkout" }]);
    expect([...plan.desired.env.keys()]).toEqual(["app", "log"]);
    expect(plan.flagsHash).toBe(flagsHash([{ name: "FLAG_NEW_CHECKOUT", value: "blue" }]));
    expect(plan.annotations).toEqual({
      workload: { [FLAGS_HASH_ANNOTATION]: plan.flagsHash, [MANAGED_ENV_ANNOTATION]: "FLAG_NEW_CHECKOUT" },
      podTemplate: { [FLAGS_HASH_ANNOTATION]: plan.flagsHash },
    });
    expect(plan.restarts).toEqual({ restarts: true, reasons: ["env var FLAG_NEW_CHECKOUT is added"] });
    expect(plan.inSync).toBe(false);
    expect(plan.flags).toEqual([
      { flag: "banner", delivery: "sidecar", matchedBy: "labels", outcome: "delivered", message: "" },
      {
        flag: "new-checkout",
        delivery: "envVar",
        matchedBy: "labels",
        outcome: "pending",
        message: "",
        envVar: "FLAG_NEW_CHECKOUT",
        value: "blue",
      },
    ]);
  });

  it("uses the flag's own variable name when it has one", () => {
    const named = envFlag("x", web);
    named.spec.delivery = { envVar: { name: "CHECKOUT", selector: { matchLabels: web } } };
    expect(planWorkload(webWorkload(), [named], CLUSTER).env.map((e) => e.name)).toEqual(["CHECKOUT"]);
  });

  it("once applied, is delivered, in sync and restarts nothing", () => {
    const delivered = deliver(webWorkload(), [checkout]);
    const again = planWorkload(delivered, [checkout], CLUSTER);
    expect(again.inSync).toBe(true);
    expect(again.restarts).toEqual({ restarts: false, reasons: [] });
    expect(again.flags[0]?.outcome).toBe("delivered");
  });

  it("rolls the workload when the value changes: a new hash", () => {
    const delivered = deliver(webWorkload(), [checkout]);
    const changed = envFlag("new-checkout", web, { defaultValue: "green" });
    const plan = planWorkload(delivered, [changed], CLUSTER);
    expect(plan.flagsHash).not.toBe(planWorkload(delivered, [checkout], CLUSTER).flagsHash);
    expect(plan.restarts).toEqual({ restarts: true, reasons: ["env var FLAG_NEW_CHECKOUT changes value"] });
    expect(plan.flags[0]?.outcome).toBe("pending");
  });

  it("removes the variable when disabled, leaving the workload as before it matched", () => {
    const original = webWorkload({
      containers: [{ name: "app", env: [{ name: "LOG_LEVEL", value: "debug" }] }],
    });
    const delivered = deliver(original, [checkout]);
    const off = envFlag("new-checkout", web, { defaultValue: "blue", enabled: false });
    const plan = planWorkload(delivered, [off], CLUSTER);
    expect(plan.env).toEqual([]);
    expect(plan.flagsHash).toBeUndefined();
    expect(plan.restarts.reasons).toEqual(["env var FLAG_NEW_CHECKOUT is removed"]);
    expect(plan.flags[0]).toMatchObject({
      outcome: "pending",
      message: "waiting for FLAG_NEW_CHECKOUT to be removed",
    });
    const withdrawn = applyPlan(delivered, plan);
    expect(withdrawn).toEqual(original);
    expect(planWorkload(withdrawn, [off], CLUSTER).flags[0]?.outcome).toBe("disabled");
    // Deleting the flag (or a deletion in progress) withdraws it the same way.
    const deleting = {
      ...checkout,
      metadata: { ...checkout.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" },
    };
    expect(applyPlan(delivered, planWorkload(delivered, [deleting], CLUSTER))).toEqual(original);
    expect(applyPlan(delivered, planWorkload(delivered, [], CLUSTER))).toEqual(original);
  });

  it("never overwrites a variable the workload defines itself, and reports the conflict", () => {
    const target = webWorkload({
      containers: [{ name: "app" }, { name: "worker", env: [{ name: "FLAG_NEW_CHECKOUT", value: "mine" }] }],
    });
    const plan = planWorkload(target, [checkout], CLUSTER);
    expect(plan.env).toEqual([]);
    expect(plan.flagsHash).toBeUndefined();
    expect(plan.restarts.restarts).toBe(false);
    expect(plan.flags[0]).toMatchObject({
      outcome: "conflict",
      message: "container worker defines FLAG_NEW_CHECKOUT itself; svc does not overwrite it",
    });
  });

  it("gives a variable set by two flags to the first by name and reports the other", () => {
    const a = envFlag("a", web);
    a.spec.delivery = { envVar: { name: "SHARED", selector: { matchLabels: web } } };
    const b = envFlag("b", web, { defaultValue: "other" });
    b.spec.delivery = { envVar: { name: "SHARED", selector: { matchLabels: web } } };
    const plan = planWorkload(webWorkload(), [b, a], CLUSTER);
    expect(plan.env).toEqual([{ name: "SHARED", value: "on", flag: "a" }]);
    expect(plan.flags.map((f) => [f.flag, f.outcome, f.message])).toEqual([
      ["a", "pending", ""],
      ["b", "conflict", "flag a already sets SHARED"],
    ]);
  });

  it("does not deliver a json flag whose value is not JSON, and says so", () => {
    const broken = envFlag("settings", web, { type: "json", defaultValue: "{not json" });
    const plan = planWorkload(webWorkload(), [broken], CLUSTER);
    expect(plan.env).toEqual([]);
    expect(plan.flags[0]?.outcome).toBe("invalid");
    expect(plan.flags[0]?.message).toContain("valid JSON");
  });

  it("ignores flags of other namespaces and flags that do not match", () => {
    const elsewhere = { ...checkout, metadata: { ...checkout.metadata, namespace: "other" } };
    const plan = planWorkload(webWorkload(), [elsewhere, envFlag("api-only", { app: "api" })], CLUSTER);
    expect(plan.flags).toEqual([]);
    expect(plan.inSync).toBe(true);
  });
});

describe("planWorkload: configMap", () => {
  const limits = configMapFlag("limit", "web-flags", web);

  it("mounts the ConfigMap read-only once in every flag container: a restart at first mount only", () => {
    const plan = planWorkload(
      webWorkload({ containers: [{ name: "app" }, { name: "log" }] }),
      [limits],
      CLUSTER,
    );
    expect(plan.volumes).toEqual([{ name: "svc-flags-web-flags", configMap: { name: "web-flags" } }]);
    expect(plan.volumeMounts).toEqual([
      { name: "svc-flags-web-flags", mountPath: "/etc/svc-flags/web-flags", readOnly: true },
    ]);
    expect(plan.restarts.reasons).toEqual(["ConfigMap web-flags is mounted (first mount)"]);
    const delivered = applyPlan(webWorkload({ containers: [{ name: "app" }, { name: "log" }] }), plan);
    const changed = { ...limits, spec: { ...limits.spec, defaultValue: "new" } };
    const second = configMapFlag("burst", "web-flags", web);
    for (const flags of [
      [changed],
      [changed, second],
      [{ ...limits, spec: { ...limits.spec, enabled: false } }],
    ]) {
      const next = planWorkload(delivered, flags, CLUSTER);
      expect(next.restarts.restarts).toBe(false);
      expect(next.inSync).toBe(true);
    }
    expect(planWorkload(delivered, [limits], CLUSTER).flags[0]?.outcome).toBe("delivered");
  });

  it("unmounts when no matching flag writes the ConfigMap any more", () => {
    const delivered = deliver(webWorkload(), [limits]);
    expect(planWorkload(delivered, [], CLUSTER).restarts.reasons).toEqual([
      "ConfigMap web-flags is unmounted",
    ]);
    expect(deliver(delivered, [])).toEqual(webWorkload());
  });

  it("names the volume of a dotted or long ConfigMap name validly", () => {
    const dotted = configMapFlag("x", "flags.web.example.com", web);
    const [volume] = planWorkload(webWorkload(), [dotted], CLUSTER).volumes;
    expect(volume?.name).toMatch(/^svc-flags-flags-web-example-com-[0-9a-f]{8}$/);
    const long = configMapFlag("y", "f".repeat(200), web);
    expect(planWorkload(webWorkload(), [long], CLUSTER).volumes[0]?.name.length).toBeLessThanOrEqual(63);
  });
});

describe("planWorkload: sidecar", () => {
  it("injects the sidecar once, with the flag's port: a restart at first injection only", () => {
    const first = sidecarFlag("banner", web, 9000);
    const plan = planWorkload(webWorkload(), [first], CLUSTER);
    expect(plan.sidecar).toEqual({ port: 9000 });
    expect(plan.restarts.reasons).toEqual(["sidecar svc-flags is injected (first sidecar)"]);
    const delivered = applyPlan(webWorkload(), plan);
    const changed = { ...first, spec: { ...first.spec, defaultValue: "new", enabled: false } };
    expect(planWorkload(delivered, [changed], CLUSTER).restarts.restarts).toBe(false);
    expect(planWorkload(delivered, [changed], CLUSTER).flags[0]?.outcome).toBe("disabled");
    expect(planWorkload(delivered, [first], CLUSTER).flags[0]?.outcome).toBe("delivered");
  });

  it("keeps the port it has while a flag asks for it, and says where another port's flag is served", () => {
    const delivered = deliver(webWorkload(), [sidecarFlag("b", web, 9000)]);
    const plan = planWorkload(delivered, [sidecarFlag("a", web), sidecarFlag("b", web, 9000)], CLUSTER);
    expect(plan.sidecar).toEqual({ port: 9000 });
    expect(plan.restarts.restarts).toBe(false);
    expect(plan.flags.map((f) => [f.flag, f.outcome, f.message])).toEqual([
      ["a", "delivered", "served by the sidecar on port 9000"],
      ["b", "delivered", ""],
    ]);
    // Without a sidecar yet, the lowest port asked for wins.
    expect(
      planWorkload(webWorkload(), [sidecarFlag("a", web), sidecarFlag("b", web, 9000)], CLUSTER).sidecar,
    ).toEqual({
      port: 8514,
    });
  });

  it("removes the sidecar with the last matching sidecar flag", () => {
    const delivered = deliver(webWorkload(), [sidecarFlag("banner", web)]);
    expect(planWorkload(delivered, [], CLUSTER).restarts.reasons).toEqual(["sidecar svc-flags is removed"]);
    expect(deliver(delivered, [])).toEqual(webWorkload());
  });
});

describe("flagsHash", () => {
  it("does not depend on order, and tells values and names apart", () => {
    const a = { name: "A", value: "1" };
    const b = { name: "B", value: "2" };
    expect(flagsHash([a, b])).toBe(flagsHash([b, a]));
    expect(flagsHash([a, b])).toMatch(/^[0-9a-f]{64}$/);
    expect(flagsHash([a])).not.toBe(flagsHash([{ name: "A", value: "2" }]));
    // A value cannot imitate a second variable.
    expect(flagsHash([{ name: "A", value: '1","B=2' }])).not.toBe(flagsHash([a, b]));
    expect(flagsHash([])).toBeUndefined();
  });
});
