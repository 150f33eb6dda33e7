import { describe, expect, it } from "vitest";
import {
  PROTECTED_CLUSTER_LABEL,
  planClusters,
  resolveWaves,
  type ClusterConnectionResource,
} from "../../src/index.ts";

const connection = (name: string, labels?: Record<string, string>): ClusterConnectionResource => ({
  metadata: { name, namespace: "svc-system" },
  spec: {
    displayName: name,
    apiServer: `https://${name}.example:6443`,
    ...(labels === undefined ? {} : { labels }),
  },
});

describe("planClusters", () => {
  it("keeps each ClusterConnection's labels and protects only the clusters labelled svc.io/protected=true", () => {
    const clusters = planClusters([
      connection("local"),
      connection("staging", { env: "staging" }),
      connection("eu-1", { region: "eu", [PROTECTED_CLUSTER_LABEL]: "true" }),
      // Only "true" protects: a typo must not look protected in one place and not in another.
      connection("eu-2", { region: "eu", [PROTECTED_CLUSTER_LABEL]: "True" }),
      connection("us-1", { region: "us", [PROTECTED_CLUSTER_LABEL]: "false" }),
    ]);
    expect(PROTECTED_CLUSTER_LABEL).toBe("svc.io/protected");
    expect([...clusters]).toEqual([
      ["local", { labels: {}, protected: false }],
      ["staging", { labels: { env: "staging" }, protected: false }],
      ["eu-1", { labels: { region: "eu", "svc.io/protected": "true" }, protected: true }],
      ["eu-2", { labels: { region: "eu", "svc.io/protected": "True" }, protected: false }],
      ["us-1", { labels: { region: "us", "svc.io/protected": "false" }, protected: false }],
    ]);
  });

  it("is what resolveWaves resolves selectors and ids against", () => {
    const clusters = planClusters([
      connection("eu-2", { region: "eu" }),
      connection("eu-1", { region: "eu", [PROTECTED_CLUSTER_LABEL]: "true" }),
      connection("us-1", { region: "us" }),
    ]);
    expect(
      resolveWaves(
        [{ clusters: ["us-1"] }, { clusterSelector: { matchLabels: { region: "eu" } } }],
        clusters,
      ),
    ).toEqual({
      ok: true,
      waves: [["us-1"], ["eu-1", "eu-2"]],
    });
    // Protected clusters can be selected by the label too.
    expect(
      resolveWaves([{ clusterSelector: { matchLabels: { [PROTECTED_CLUSTER_LABEL]: "true" } } }], clusters),
    ).toEqual({ ok: true, waves: [["eu-1"]] });
    expect(resolveWaves([{ clusters: ["ap-1"] }], clusters)).toEqual({
      ok: false,
      field: "waves.0.clusters",
      message: "no cluster ap-1 is registered",
    });
    expect(
      resolveWaves(
        [{ clusters: ["eu-1"] }, { clusterSelector: { matchLabels: { region: "eu" } } }],
        clusters,
      ),
    ).toEqual({ ok: false, field: "waves.1", message: "holds cluster eu-1, which waves.0 holds too" });
    expect(resolveWaves([{ clusterSelector: { matchLabels: { region: "ap" } } }], clusters)).toEqual({
      ok: false,
      field: "waves.0.clusterSelector",
      message: "matches no registered cluster",
    });
  });

  it("knows no cluster without a ClusterConnection", () => {
    expect(planClusters([]).size).toBe(0);
  });
});
