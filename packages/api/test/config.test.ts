import { describe, expect, it } from "vitest";
import { parseApiConfig } from "../src/config.ts";

describe("parseApiConfig", () => {
  it("has the documented defaults", () => {
    expect(parseApiConfig({})).toEqual({
      ok: true,
      value: {
        host: "0.0.0.0",
        port: 8090,
        metricsHost: "0.0.0.0",
        metricsPort: 9090,
        database: { kind: "sqlite", path: "svc.sqlite" },
        adminPassword: undefined,
        auditRetentionDays: 365,
        logLevel: "info",
        trustProxy: false,
        clusterId: "local",
        systemNamespace: "svc-system",
        webhooks: {
          allowedNetworks: [],
          timeoutMs: 10_000,
          retryMaxDelayMs: 300_000,
          pollIntervalMs: 1000,
          observedGraceMs: 5000,
        },
        sso: undefined,
        passwordLogin: true,
        delivery: {
          serviceNamespace: "svc-system",
          excludedNamespaces: [],
          namespaceOptIn: false,
          envVarNames: [],
        },
      },
    });
  });

  it("reads the delivery policy the operator enforces, naming a wrong variable", () => {
    const set = parseApiConfig({
      SVC_NAMESPACE: "platform",
      SVC_DELIVERY_EXCLUDED_NAMESPACES: "payments, team-infra",
      SVC_DELIVERY_NAMESPACE_OPT_IN: "true",
      SVC_ENV_VAR_NAMES: "FLAG_*,APP_FEATURE_*",
    });
    expect(set.ok && set.value.delivery).toEqual({
      serviceNamespace: "platform",
      excludedNamespaces: ["payments", "team-infra"],
      namespaceOptIn: true,
      envVarNames: ["FLAG_*", "APP_FEATURE_*"],
    });
    const bad = parseApiConfig({ SVC_DELIVERY_EXCLUDED_NAMESPACES: "Payments", SVC_ENV_VAR_NAMES: "FLAG-*" });
    expect(bad.ok ? [] : bad.errors.map((e) => e.field)).toEqual([
      "SVC_DELIVERY_EXCLUDED_NAMESPACES",
      "SVC_ENV_VAR_NAMES",
    ]);
  });

  it("picks PostgreSQL for a postgres URL and SQLite at a given path otherwise", () => {
    const pg = parseApiConfig({ SVC_DATABASE_URL: "postgresql://u@db:5432/svc" });
    expect(pg.ok && pg.value.database).toEqual({ kind: "postgres", url: "postgresql://u@db:5432/svc" });
    const file = parseApiConfig({ SVC_DATABASE_PATH: "/var/lib/svc/svc.sqlite", SVC_API_PORT: "9000" });
    expect(file.ok && [file.value.database, file.value.port]).toEqual([
      { kind: "sqlite", path: "/var/lib/svc/svc.sqlite" },
      9000,
    ]);
  });

  it("refuses numbers that are not plain decimal digits, as the sidecar does", () => {
    for (const port of ["0x1F", " 8e3 ", "8e3", "+80", "80.0"]) {
      const result = parseApiConfig({ SVC_API_PORT: port });
      expect(result.ok ? [] : result.errors, port).toEqual([
        {
          field: "SVC_API_PORT",
          message: `must be a port number between 0 and 65535, got ${JSON.stringify(port)}`,
        },
      ]);
    }
  });

  it("takes the cluster id and the service namespace, refusing what cannot be a Kubernetes name", () => {
    const good = parseApiConfig({ SVC_CLUSTER_ID: "hub-eu", SVC_NAMESPACE: "flags" });
    expect(good.ok && [good.value.clusterId, good.value.systemNamespace]).toEqual(["hub-eu", "flags"]);
    const bad = parseApiConfig({ SVC_CLUSTER_ID: "Hub_EU" });
    expect(bad.ok ? [] : bad.errors.map((e) => e.field)).toEqual(["SVC_CLUSTER_ID"]);
  });

  it("believes X-Forwarded-For only from the proxies listed, and SVC_TRUST_PROXY=true only alone", () => {
    const listed = parseApiConfig({ SVC_TRUSTED_PROXIES: "10.0.0.0/8, 192.0.2.7,::1/128" });
    expect(listed.ok && listed.value.trustProxy).toEqual(["10.0.0.0/8", "192.0.2.7", "::1/128"]);
    const deprecated = parseApiConfig({ SVC_TRUST_PROXY: "true" });
    expect(deprecated.ok && deprecated.value.trustProxy).toBe(true);
    const bad = parseApiConfig({ SVC_TRUSTED_PROXIES: "10.0.0.0/33,ingress" });
    expect(bad.ok ? [] : bad.errors).toEqual([
      { field: "SVC_TRUSTED_PROXIES", message: "not an address or CIDR: 10.0.0.0/33, ingress" },
    ]);
    const both = parseApiConfig({ SVC_TRUST_PROXY: "true", SVC_TRUSTED_PROXIES: "10.0.0.1" });
    expect(both.ok ? [] : both.errors.map((e) => e.field)).toEqual(["SVC_TRUST_PROXY"]);
  });

  it("names every bad variable", () => {
    const result = parseApiConfig({
      SVC_API_PORT: "http",
      SVC_METRICS_PORT: "70000",
      SVC_AUDIT_RETENTION_DAYS: "0",
      SVC_DATABASE_URL: "mysql://x",
      SVC_LOG_LEVEL: "loud",
      SVC_TRUST_PROXY: "yes",
    });
    expect(result.ok ? [] : result.errors.map((e) => e.field)).toEqual([
      "SVC_API_PORT",
      "SVC_METRICS_PORT",
      "SVC_AUDIT_RETENTION_DAYS",
      "SVC_DATABASE_URL",
      "SVC_LOG_LEVEL",
      "SVC_TRUST_PROXY",
    ]);
  });
});
