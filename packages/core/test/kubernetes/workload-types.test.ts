// client-node's workload models satisfy core's structural types, so the API and the operator
// pass informer objects to core as they are (checked by tsc; the test keeps the file run).
import type { V1DaemonSet, V1Deployment, V1StatefulSet } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { planWorkload, type Workload, type WorkloadObject } from "../../src/index.ts";
import { CLUSTER } from "../support/workloads.ts";

describe("WorkloadObject", () => {
  it("is satisfied by client-node's Deployment, StatefulSet and DaemonSet", () => {
    const deployment: V1Deployment = {
      metadata: { name: "web", namespace: "shop", labels: { app: "web" }, creationTimestamp: new Date() },
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: { spec: { containers: [{ name: "app", env: [{ name: "A", value: "1" }] }] } },
      },
    };
    const statefulSet: V1StatefulSet = { metadata: { name: "db" } };
    const daemonSet: V1DaemonSet = {
      metadata: { name: "agent" },
      status: { numberReady: 1 } as V1DaemonSet["status"],
    };
    const objects: WorkloadObject[] = [deployment, statefulSet, daemonSet];
    const workload: Workload = { kind: "Deployment", object: deployment };
    expect(objects).toHaveLength(3);
    expect(planWorkload(workload, [], CLUSTER).name).toBe("web");
  });
});
