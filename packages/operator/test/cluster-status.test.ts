import { clusterStatus } from "@svc/core";
import { describe, expect, it } from "vitest";
import { probeOf, statusWorthWriting } from "../src/cluster-status.ts";

describe("probeOf", () => {
  it("maps the registry's health to core's probe", () => {
    expect(probeOf({ state: "syncing" }, 0)).toBeUndefined();
    expect(probeOf({ state: "ready", kubernetesVersion: "v1.31.0" }, 4)).toEqual({
      result: "connected",
      kubernetesVersion: "v1.31.0",
      discoveredWorkloads: 4,
    });
    expect(probeOf({ state: "unreachable", message: "connect ECONNREFUSED" }, 0)?.result).toBe("unreachable");
    expect(probeOf({ state: "error", message: "list deployments: 401 Unauthorized" }, 0)?.result).toBe(
      "unauthorized",
    );
    expect(probeOf({ state: "error", message: "self-signed certificate in chain" }, 0)?.result).toBe("tls");
    expect(probeOf({ state: "error", message: "Secret svc-cluster-east has no key token" }, 0)?.result).toBe(
      "misconfigured",
    );
  });
});

describe("statusWorthWriting", () => {
  const t0 = new Date("2026-11-22T09:00:00Z");
  const connected = clusterStatus(
    { result: "connected", kubernetesVersion: "v1.31.0", discoveredWorkloads: 3 },
    undefined,
    t0,
  );

  it("skips a report that only moves lastSyncTime within the resync period, and writes after it", () => {
    const soon = clusterStatus(
      { result: "connected", kubernetesVersion: "v1.31.0", discoveredWorkloads: 3 },
      connected,
      new Date("2026-11-22T09:01:00Z"),
    );
    expect(statusWorthWriting(connected, soon, 300_000, new Date("2026-11-22T09:01:00Z"))).toBe(false);
    const late = clusterStatus(
      { result: "connected", kubernetesVersion: "v1.31.0", discoveredWorkloads: 3 },
      connected,
      new Date("2026-11-22T09:06:00Z"),
    );
    expect(statusWorthWriting(connected, late, 300_000, new Date("2026-11-22T09:06:00Z"))).toBe(true);
  });

  it("writes at once when the phase, message or workload count changes", () => {
    const down = clusterStatus(
      { result: "unreachable", message: "timeout" },
      connected,
      new Date("2026-11-22T09:00:10Z"),
    );
    expect(statusWorthWriting(connected, down, 300_000, new Date("2026-11-22T09:00:10Z"))).toBe(true);
    const more = clusterStatus(
      { result: "connected", kubernetesVersion: "v1.31.0", discoveredWorkloads: 4 },
      connected,
      t0,
    );
    expect(statusWorthWriting(connected, more, 300_000, t0)).toBe(true);
    expect(statusWorthWriting(undefined, connected, 300_000, t0)).toBe(true);
  });
});
