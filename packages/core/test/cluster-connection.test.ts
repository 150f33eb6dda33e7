import { describe, expect, it } from "vitest";
import { validateClusterConnectionSpec } from "../src/index.ts";

const valid = {
  displayName: "Production EU",
  apiServer: "https://10.0.0.1:6443",
  authMethod: "kubeconfig",
  credentialRef: { name: "svc-cluster-prod", key: "kubeconfig" },
  namespaces: ["shop", "payments"],
  resyncPeriod: "30s",
  labels: { region: "eu-west-1", "example.com/tier": "prod" },
};

function fields(patch: Record<string, unknown>): string[] {
  const result = validateClusterConnectionSpec({ ...valid, ...patch });
  return result.ok ? [] : result.errors.map((e) => e.field);
}

describe("validateClusterConnectionSpec", () => {
  it("accepts a full spec and a minimal one", () => {
    expect(fields({})).toEqual([]);
    expect(validateClusterConnectionSpec({ displayName: "x", apiServer: "http://127.0.0.1:1" }).ok).toBe(
      true,
    );
  });

  it("requires an absolute http(s) apiServer URL", () => {
    for (const apiServer of ["10.0.0.1:6443", "ftp://x", "https://", "https://a b", ""]) {
      expect(fields({ apiServer })).toEqual(["apiServer"]);
    }
  });

  it("checks authMethod, credentialRef, namespaces, resyncPeriod and labels", () => {
    expect(fields({ authMethod: "password" })).toEqual(["authMethod"]);
    expect(fields({ credentialRef: { name: "Bad_Name", key: "k" } })).toEqual(["credentialRef.name"]);
    expect(fields({ credentialRef: { name: "s" } })).toEqual(["credentialRef.key"]);
    expect(fields({ namespaces: ["Shop"] })).toEqual(["namespaces.0"]);
    expect(fields({ namespaces: ["a", "a"] })).toEqual(["namespaces"]);
    for (const resyncPeriod of ["1h30m", "500ms", "2.5s"]) expect(fields({ resyncPeriod })).toEqual([]);
    for (const resyncPeriod of ["30", "s", "thirty seconds"]) {
      expect(fields({ resyncPeriod })).toEqual(["resyncPeriod"]);
    }
    expect(fields({ labels: { "bad key": "x" } })).toEqual(["labels.bad key"]);
    expect(fields({ displayName: "" })).toEqual(["displayName"]);
    expect(fields({ token: "secret" })).toEqual(["token"]);
  });
});
