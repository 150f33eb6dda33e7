import { describe, expect, it } from "vitest";
import {
  clusterPhase,
  clusterStatus,
  clusterView,
  visibleNamespaces,
  type ClusterConnectionResource,
  type ClusterProbe,
} from "../src/index.ts";

const connection: ClusterConnectionResource = {
  metadata: { name: "prod-eu", namespace: "svc-system" },
  spec: {
    displayName: "Production EU",
    apiServer: "https://10.0.0.1:6443",
    authMethod: "kubeconfig",
    credentialRef: { name: "svc-cluster-prod-eu", key: "kubeconfig" },
    namespaces: ["shop"],
    labels: { region: "eu" },
  },
};

describe("clusterView", () => {
  it("is Disconnected, never reached, until the operator reports", () => {
    expect(clusterView(connection, "local")).toEqual({
      id: "prod-eu",
      displayName: "Production EU",
      apiServer: "https://10.0.0.1:6443",
      status: "Disconnected",
      kubernetesVersion: "",
      discoveredWorkloads: 0,
      local: false,
      labels: { region: "eu" },
      namespaces: ["shop"],
      authMethod: "kubeconfig",
      lastSyncTime: null,
      message: "not reached by the operator yet",
    });
  });

  it("shows the operator's status, marks the local cluster, and never shows credentials", () => {
    const status = clusterStatus(
      { result: "connected", kubernetesVersion: "v1.31.2", discoveredWorkloads: 7 },
      undefined,
      new Date("2026-11-22T08:00:00.123Z"),
    );
    const view = clusterView({ ...connection, status }, "prod-eu");
    expect(view).toMatchObject({
      status: "Connected",
      kubernetesVersion: "v1.31.2",
      discoveredWorkloads: 7,
      local: true,
      lastSyncTime: "2026-11-22T08:00:00Z",
      message: "",
    });
    expect(JSON.stringify(view)).not.toContain("credentialRef");
  });
});

describe("clusterPhase", () => {
  it("is Disconnected when the cluster may come back alone, Error when a person must act", () => {
    const cases: [ClusterProbe, string][] = [
      [{ result: "connected", kubernetesVersion: "v1", discoveredWorkloads: 0 }, "Connected"],
      [{ result: "unreachable", message: "connect ECONNREFUSED" }, "Disconnected"],
      [{ result: "unauthorized", message: "401" }, "Error"],
      [{ result: "tls", message: "self-signed certificate" }, "Error"],
      [{ result: "misconfigured", message: "Secret svc-cluster-x not found" }, "Error"],
    ];
    for (const [probe, phase] of cases) expect(clusterPhase(probe)).toBe(phase);
  });
});

describe("clusterStatus", () => {
  const t0 = new Date("2026-11-22T08:00:00Z");
  const t1 = new Date("2026-11-22T08:05:00Z");
  const t2 = new Date("2026-11-22T08:10:00Z");
  const connected = clusterStatus(
    { result: "connected", kubernetesVersion: "v1.31.2", discoveredWorkloads: 7 },
    undefined,
    t0,
    2,
  );

  it("records a successful probe with a Ready condition", () => {
    expect(connected).toEqual({
      phase: "Connected",
      kubernetesVersion: "v1.31.2",
      discoveredWorkloads: 7,
      lastSyncTime: "2026-11-22T08:00:00Z",
      message: "",
      conditions: [
        {
          type: "Ready",
          status: "True",
          observedGeneration: 2,
          lastTransitionTime: "2026-11-22T08:00:00Z",
          reason: "Connected",
          message: "the cluster answers and its workloads are watched",
        },
      ],
    });
  });

  it("keeps what was last known when the cluster goes away, and the transition time while it stays away", () => {
    const down = clusterStatus(
      { result: "unreachable", message: "connect ECONNREFUSED 10.0.0.1:6443" },
      connected,
      t1,
    );
    expect(down).toMatchObject({
      phase: "Disconnected",
      kubernetesVersion: "v1.31.2",
      discoveredWorkloads: 7,
      lastSyncTime: "2026-11-22T08:00:00Z",
      message: "connect ECONNREFUSED 10.0.0.1:6443",
      conditions: [
        { type: "Ready", status: "False", reason: "Unreachable", lastTransitionTime: "2026-11-22T08:05:00Z" },
      ],
    });
    const stillDown = clusterStatus({ result: "unauthorized", message: "Unauthorized" }, down, t2);
    expect(stillDown.phase).toBe("Error");
    expect(stillDown.conditions?.[0]).toMatchObject({
      reason: "Unauthorized",
      lastTransitionTime: "2026-11-22T08:05:00Z",
    });
    const back = clusterStatus(
      { result: "connected", kubernetesVersion: "v1.31.3", discoveredWorkloads: 8 },
      stillDown,
      t2,
    );
    expect(back.conditions?.[0]).toMatchObject({
      status: "True",
      lastTransitionTime: "2026-11-22T08:10:00Z",
    });
  });

  it("leaves other conditions in place", () => {
    const other = {
      type: "CrdInstalled",
      status: "True" as const,
      lastTransitionTime: "x",
      reason: "Installed",
      message: "",
    };
    const status = clusterStatus({ result: "unreachable", message: "timeout" }, { conditions: [other] }, t0);
    expect(status.conditions?.map((c) => c.type)).toEqual(["CrdInstalled", "Ready"]);
  });
});

describe("visibleNamespaces", () => {
  const names = [
    "shop",
    "kube-system",
    "default",
    "svc-system",
    "kube-public",
    "kube-node-lease",
    "payments",
    "shop",
  ];

  it("sorts and hides system namespaces", () => {
    expect(visibleNamespaces(names, undefined)).toEqual(["default", "payments", "shop"]);
    expect(visibleNamespaces(names, [])).toEqual(["default", "payments", "shop"]);
  });

  it("keeps to the connection's namespaces when it lists some, system ones still hidden", () => {
    expect(visibleNamespaces(names, ["shop", "kube-system", "absent"])).toEqual(["shop"]);
  });
});
