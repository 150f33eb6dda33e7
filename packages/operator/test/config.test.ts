import { describe, expect, it } from "vitest";
import { validOrThrow } from "@svc/core/schema/field-errors";
import type { Environment } from "@svc/core/schema/settings";
import { DEFAULT_OPERATOR_METRICS_PORT, parseOperatorConfig as parseResult } from "../src/config.ts";

/** The configuration, or an Error naming every bad variable as `svc operator` prints them. */
const parseOperatorConfig = (env: Environment) => validOrThrow(parseResult(env));

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

describe("the delivery guardrails", () => {
  it("never deliver to svc's namespace, by default to no other, and allow any name not refused", () => {
    expect(parseOperatorConfig({ SVC_NAMESPACE: "platform" }).delivery).toEqual({
      serviceNamespace: "platform",
      excludedNamespaces: [],
      namespaceOptIn: false,
      envVarNames: [],
    });
  });

  it("read the installer's namespaces, opt-in mode and name patterns, naming a bad one", () => {
    const config = parseOperatorConfig({
      SVC_DELIVERY_EXCLUDED_NAMESPACES: "monitoring,team-infra",
      SVC_DELIVERY_NAMESPACE_OPT_IN: "true",
      SVC_ENV_VAR_NAMES: "FLAG_*",
    });
    expect(config.delivery).toMatchObject({
      excludedNamespaces: ["monitoring", "team-infra"],
      namespaceOptIn: true,
      envVarNames: ["FLAG_*"],
    });
    expect(() => parseOperatorConfig({ SVC_ENV_VAR_NAMES: "FLAG_*,NODE-OPTIONS" })).toThrow(
      /SVC_ENV_VAR_NAMES: must list name patterns .*NODE-OPTIONS/,
    );
    expect(() => parseOperatorConfig({ SVC_DELIVERY_NAMESPACE_OPT_IN: "yes" })).toThrow(
      /SVC_DELIVERY_NAMESPACE_OPT_IN: must be true or false/,
    );
  });
});

describe("the sidecar's image and resources", () => {
  it("accepts image references with a registry port, a tag and a digest", () => {
    for (const image of [
      "ghcr.io/svc-io/svc-sidecar:0.1.0",
      "svc-sidecar",
      "127.0.0.1:5000/team/svc_sidecar:v1.2-rc.1",
      `registry.example/svc@sha256:${"a".repeat(64)}`,
    ])
      expect(parseOperatorConfig({ SVC_SIDECAR_IMAGE: image }).sidecar.image).toBe(image);
  });

  it.each([
    ["SVC_SIDECAR_IMAGE", "ghcr.io/svc-io/svc-sidecar 0.1.0"],
    ["SVC_SIDECAR_IMAGE", "ghcr.io/SVC/sidecar:1"],
    ["SVC_SIDECAR_IMAGE", "ghcr.io/svc/sidecar:"],
    ["SVC_SIDECAR_CPU_REQUEST", "10 m"],
    ["SVC_SIDECAR_CPU_LIMIT", "-1"],
    ["SVC_SIDECAR_MEMORY_REQUEST", "64MB"],
    ["SVC_SIDECAR_MEMORY_LIMIT", "lots"],
  ])("refuses %s=%j at start-up, naming the variable", (name, value) => {
    expect(() => parseOperatorConfig({ [name]: value })).toThrow(new RegExp(`^${name}: must be`));
  });

  it("accepts every quantity form the kube-apiserver does and keeps the text as given", () => {
    const config = parseOperatorConfig({
      SVC_SIDECAR_CPU_REQUEST: "0.05",
      SVC_SIDECAR_CPU_LIMIT: "1e1",
      SVC_SIDECAR_MEMORY_REQUEST: "64M",
      SVC_SIDECAR_MEMORY_LIMIT: ".5Gi",
    });
    expect(config.sidecar.resources).toEqual({
      requests: { cpu: "0.05", memory: "64M" },
      limits: { cpu: "1e1", memory: ".5Gi" },
    });
  });

  it("refuses a request above its limit, which the kube-apiserver would refuse on every apply", () => {
    expect(() =>
      parseOperatorConfig({ SVC_SIDECAR_MEMORY_REQUEST: "1Gi", SVC_SIDECAR_MEMORY_LIMIT: "160Mi" }),
    ).toThrow('SVC_SIDECAR_MEMORY_REQUEST: must not exceed SVC_SIDECAR_MEMORY_LIMIT (160Mi), got "1Gi"');
    expect(() => parseOperatorConfig({ SVC_SIDECAR_CPU_REQUEST: "200m" })).toThrow(
      'SVC_SIDECAR_CPU_REQUEST: must not exceed SVC_SIDECAR_CPU_LIMIT (100m), got "200m"',
    );
  });
});
