import { planWorkload } from "@svc/core";
import { describe, expect, it } from "vitest";
import { CLUSTER, sidecarFlag, workload } from "../../core/test/support/workloads.ts";
import { roleBindingInSync, roleInSync, sidecarServiceAccounts } from "../src/sidecar-rbac.ts";

describe("sidecar RBAC", () => {
  it("binds the ServiceAccounts of the workloads planned with the sidecar, once each", () => {
    const a = workload("a", { labels: { s: "1" } });
    const b = workload("b", { labels: { s: "1" } });
    const c = workload("c", { labels: { s: "0" } });
    const pod = b.object.spec?.template.spec;
    if (pod)
      b.object.spec = {
        ...b.object.spec,
        selector: {},
        template: { spec: { ...pod, serviceAccountName: "api" } },
      };
    const flags = [sidecarFlag("limits", { s: "1" })];
    const planned = [a, b, c].map((w) => ({ workload: w, plan: planWorkload(w, flags, CLUSTER) }));
    expect(sidecarServiceAccounts(planned)).toEqual(["api", "default"]);
  });

  it("reads a stored Role in the API server's key order as in sync (a restart writes nothing)", () => {
    const stored = {
      rules: [{ verbs: ["get", "list", "watch"], apiGroups: ["svc.io"], resources: ["featureflags"] }],
    };
    expect(roleInSync(stored)).toBe(true);
    expect(roleInSync({ rules: [] })).toBe(false);
    expect(roleInSync(undefined)).toBe(false);
  });

  it("compares a RoleBinding's subjects as a set", () => {
    const subjects = [
      { kind: "ServiceAccount", name: "default", namespace: "shop" },
      { kind: "ServiceAccount", name: "api", namespace: "shop" },
    ];
    expect(roleBindingInSync({ subjects }, "shop", ["api", "default"])).toBe(true);
    expect(roleBindingInSync({ subjects }, "shop", ["api"])).toBe(false);
  });
});
