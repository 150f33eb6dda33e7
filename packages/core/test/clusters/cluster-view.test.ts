import { describe, expect, it } from "vitest";
import {
  clusterPhase,
  clusterStatus,
  clusterView,
  visibleNamespaces,
  type ClusterConnectionResource,
  type ClusterHealthReport,
} from "../../src/index.ts";

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
      {
        health: { state: "ready", kubernetesVersion: "v1.31.2", lastSyncTime: "2026-11-22T08:00:00Z" },
        discoveredWorkloads: 7,
      },
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
  it("is Connected while the cluster answers, Disconnected when it may come back alone, Error when a person must act", () => {
    expect(clusterPhase({ state: "syncing" })).toBe("Connected");
    expect(clusterPhase({ state: "ready" })).toBe("Connected");
    expect(clusterPhase({ state: "unreachable" })).toBe("Disconnected");
    expect(clusterPhase({ state: "error" })).toBe("Error");
  });
});

describe("clusterStatus", () => {
  const t0 = new Date("2026-11-22T08:00:00.250Z");
  const t1 = new Date("2026-11-22T08:05:00Z");
  const t2 = new Date("2026-11-22T08:10:00Z");
  const ready: ClusterHealthReport = {
    state: "ready",
    kubernetesVersion: "v1.31.2",
    lastSyncTime: "2026-11-22T07:59:58.000Z",
  };
  const connected = clusterStatus({ health: ready, discoveredWorkloads: 7, generation: 2 }, t0);

  it("records a ready cluster with a Ready condition", () => {
    expect(connected).toEqual({
      phase: "Connected",
      kubernetesVersion: "v1.31.2",
      discoveredWorkloads: 7,
      lastSyncTime: "2026-11-22T07:59:58.000Z",
      message: "",
      conditions: [
        {
          type: "Ready",
          status: "True",
          observedGeneration: 2,
          lastTransitionTime: "2026-11-22T08:00:00Z",
          reason: "Ready",
          message: "the cluster answers and its workloads are watched",
        },
      ],
    });
  });

  it("keeps what was last known when the cluster goes away, and the transition time while it stays away", () => {
    const message = "cannot reach the API server: connect ECONNREFUSED 10.0.0.1:6443";
    const down = clusterStatus({ health: { state: "unreachable", message }, previous: connected }, t1);
    expect(down).toMatchObject({
      phase: "Disconnected",
      kubernetesVersion: "v1.31.2",
      discoveredWorkloads: 7,
      lastSyncTime: "2026-11-22T07:59:58.000Z",
      message,
      conditions: [
        {
          type: "Ready",
          status: "False",
          reason: "Unreachable",
          message,
          lastTransitionTime: "2026-11-22T08:05:00Z",
        },
      ],
    });
    const rejected = clusterStatus(
      { health: { state: "error", message: "credentials rejected (401)" }, previous: down },
      t2,
    );
    expect(rejected).toMatchObject({ phase: "Error", message: "credentials rejected (401)" });
    expect(rejected.conditions?.[0]).toMatchObject({
      reason: "Error",
      lastTransitionTime: "2026-11-22T08:05:00Z",
    });
    const back = clusterStatus({ health: ready, discoveredWorkloads: 8, previous: rejected }, t2);
    expect(back).toMatchObject({ phase: "Connected", discoveredWorkloads: 8, message: "" });
    expect(back.conditions?.[0]).toMatchObject({
      status: "True",
      lastTransitionTime: "2026-11-22T08:10:00Z",
    });
  });

  it("is Connected but not yet Ready during the first sync", () => {
    const syncing = clusterStatus({ health: { state: "syncing" } }, t0);
    expect(syncing).toMatchObject({ phase: "Connected", message: "" });
    expect(syncing.conditions?.[0]).toMatchObject({ status: "False", reason: "Syncing" });
  });

  it("leaves other conditions in place", () => {
    const other = {
      type: "CrdInstalled",
      status: "True" as const,
      lastTransitionTime: "x",
      reason: "Installed",
      message: "",
    };
    const status = clusterStatus({ health: { state: "unreachable" }, previous: { conditions: [other] } }, t0);
    expect(status.message).toBe("the cluster is unreachable");
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
