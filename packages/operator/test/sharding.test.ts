// The Lease names of sharding.ts: always valid Kubernetes names, whatever a replica's identity.
import { isDns1123Subdomain } from "@svc/core";
import { describe, expect, it } from "vitest";
import { clusterLeaseName, replicaLeaseName } from "../src/sharding.ts";

describe("Lease names", () => {
  it("names a replica's Lease after its pod, and gives any other identity a valid name of its own", () => {
    expect(replicaLeaseName("svc-operator-7c9d-x2x4p")).toBe("svc-operator-replica-svc-operator-7c9d-x2x4p");
    const odd = ["Operator_1", "a".repeat(260), "äöü", "", "-x-"];
    const names = odd.map(replicaLeaseName);
    for (const name of names) expect(isDns1123Subdomain(name), name).toBe(true);
    // Distinct identities keep distinct Leases (the hash), even when their stems agree.
    expect(new Set([...names, replicaLeaseName("operator-1")]).size).toBe(odd.length + 1);
  });

  it("names a cluster's Lease after its id", () => {
    expect(clusterLeaseName("east")).toBe("svc-cluster-east");
    expect(isDns1123Subdomain(clusterLeaseName("a".repeat(63)))).toBe(true);
  });
});
