import { describe, expect, it } from "vitest";
import { previewFlag, type FeatureFlagResource } from "../../src/index.ts";
import { CLUSTER, applyPlan, configMapFlag, envFlag, sidecarFlag, workload } from "../support/workloads.ts";
import { planWorkload } from "../../src/index.ts";

const web = { app: "web" };
const deployment = workload("web", { labels: web });
const statefulSet = workload("db", { kind: "StatefulSet", templateLabels: { app: "web", pod: "db" } });
const daemonSet = workload("agent", { kind: "DaemonSet", labels: web });
const other = workload("api", { labels: { app: "api" } });
const elsewhere = workload("web", { labels: web, namespace: "other" });
const workloads = [other, statefulSet, elsewhere, deployment, daemonSet];

describe("previewFlag", () => {
  it("lists exactly the matching workloads of the flag's namespace, by kind then name", () => {
    const entries = previewFlag({
      candidate: envFlag("checkout", web),
      workloads,
      namespaceFlags: [],
      cluster: CLUSTER,
    });
    expect(entries.map((e) => [e.kind, e.namespace, e.name, e.matchedBy])).toEqual([
      ["Deployment", "shop", "web", "labels"],
      ["StatefulSet", "shop", "db", "podTemplateLabels"],
      ["DaemonSet", "shop", "agent", "labels"],
    ]);
    expect(entries.every((e) => e.restarts && e.reasons.join() === "env var FLAG_CHECKOUT is added")).toBe(
      true,
    );
  });

  it("says a value change of an envVar flag restarts, of a ConfigMap or sidecar flag does not", () => {
    const cases: [FeatureFlagResource, boolean][] = [
      [envFlag("f", web), true],
      [configMapFlag("f", "web-flags", web), false],
      [sidecarFlag("f", web), false],
    ];
    for (const [stored, restarts] of cases) {
      const converged = applyPlan(deployment, planWorkload(deployment, [stored], CLUSTER));
      const candidate = { ...stored, spec: { ...stored.spec, defaultValue: "changed" } };
      const [entry] = previewFlag({
        candidate,
        workloads: [converged],
        namespaceFlags: [stored],
        cluster: CLUSTER,
      });
      expect(entry?.restarts).toBe(restarts);
    }
  });

  it("says the first ConfigMap mount and the first sidecar restart, a second flag on them does not", () => {
    const first = previewFlag({
      candidate: configMapFlag("a", "web-flags", web),
      workloads: [deployment],
      namespaceFlags: [],
      cluster: CLUSTER,
    });
    expect(first[0]?.reasons).toEqual(["ConfigMap web-flags is mounted (first mount)"]);
    const stored = [configMapFlag("a", "web-flags", web), sidecarFlag("s", web)];
    const converged = applyPlan(deployment, planWorkload(deployment, stored, CLUSTER));
    for (const candidate of [configMapFlag("b", "web-flags", web), sidecarFlag("t", web)]) {
      const [entry] = previewFlag({
        candidate,
        workloads: [converged],
        namespaceFlags: stored,
        cluster: CLUSTER,
      });
      expect(entry).toMatchObject({ restarts: false, reasons: [] });
    }
    const [sidecar] = previewFlag({
      candidate: sidecarFlag("t", web),
      workloads: [deployment],
      namespaceFlags: [],
      cluster: CLUSTER,
    });
    expect(sidecar?.reasons).toEqual(["sidecar svc-flags is injected (first sidecar)"]);
  });

  it("lists the workloads a changed selector leaves, which lose the flag", () => {
    const stored = envFlag("checkout", web);
    const candidate = envFlag("checkout", { app: "api" });
    const entries = previewFlag({
      candidate,
      workloads: [deployment, other],
      namespaceFlags: [stored],
      cluster: CLUSTER,
    });
    expect(entries.map((e) => [e.name, e.matchedBy, e.reasons])).toEqual([
      ["api", "labels", ["env var FLAG_CHECKOUT is added"]],
      ["web", "none", ["env var FLAG_CHECKOUT is removed"]],
    ]);
  });

  it("compares with an explicit previous version instead of the stored one", () => {
    const previous = envFlag("checkout", web, { defaultValue: "old" });
    const candidate = envFlag("checkout", web, { defaultValue: "old" });
    const [entry] = previewFlag({
      candidate,
      previous,
      workloads: [deployment],
      namespaceFlags: [],
      cluster: CLUSTER,
    });
    expect(entry).toMatchObject({ restarts: false, reasons: [] });
  });

  it("restarts nothing for a disabled new flag", () => {
    const candidate = envFlag("checkout", web, { enabled: false });
    expect(
      previewFlag({ candidate, workloads, namespaceFlags: [], cluster: CLUSTER }).every((e) => !e.restarts),
    ).toBe(true);
  });
});
