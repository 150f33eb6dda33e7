import { describe, expect, it } from "vitest";
import { DEFAULT_OPERATOR_METRICS_PORT, parseOperatorConfig } from "../src/config.ts";

describe("parseOperatorConfig", () => {
  it("has defaults for every setting", () => {
    const config = parseOperatorConfig({ HOSTNAME: "svc-operator-0" });
    expect(config).toMatchObject({
      clusterId: "local",
      systemNamespace: "svc-system",
      concurrency: 16,
      resyncMs: 600_000,
      metricsPort: DEFAULT_OPERATOR_METRICS_PORT,
      leaderElection: true,
      identity: "svc-operator-0",
      leaseDurationMs: 15_000,
    });
  });

  it("names every bad variable in one message", () => {
    expect(() =>
      parseOperatorConfig({
        SVC_OPERATOR_CONCURRENCY: "0",
        SVC_CLUSTER_ID: "Not_A_Label",
        SVC_OPERATOR_RESYNC: "1s",
      }),
    ).toThrow(/SVC_CLUSTER_ID.*SVC_OPERATOR_CONCURRENCY.*SVC_OPERATOR_RESYNC/);
  });
});
