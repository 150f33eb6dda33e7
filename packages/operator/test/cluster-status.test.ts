import { clusterStatus } from "@svc/core";
import { describe, expect, it } from "vitest";
import { statusWorthWriting } from "../src/cluster-status.ts";

/** What the registry reports of a cluster whose caches were last in step at `at`. */
const ready = (at: string) => ({ state: "ready", kubernetesVersion: "v1.31.0", lastSyncTime: at }) as const;

describe("statusWorthWriting", () => {
  const t0 = new Date("2026-11-22T09:00:00Z");
  const connected = clusterStatus({ health: ready(t0.toISOString()), discoveredWorkloads: 3 }, t0);

  it("skips a report that only moves lastSyncTime within the resync period, and writes after it", () => {
    const at1 = new Date("2026-11-22T09:01:00Z");
    const soon = clusterStatus(
      { health: ready(at1.toISOString()), discoveredWorkloads: 3, previous: connected },
      at1,
    );
    expect(statusWorthWriting(connected, soon, 300_000, at1)).toBe(false);
    const at6 = new Date("2026-11-22T09:06:00Z");
    const late = clusterStatus(
      { health: ready(at6.toISOString()), discoveredWorkloads: 3, previous: connected },
      at6,
    );
    expect(statusWorthWriting(connected, late, 300_000, at6)).toBe(true);
  });

  it("writes at once when the phase, message or workload count changes", () => {
    const down = clusterStatus(
      { health: { state: "unreachable", message: "timeout" }, previous: connected },
      new Date("2026-11-22T09:00:10Z"),
    );
    expect(statusWorthWriting(connected, down, 300_000, new Date("2026-11-22T09:00:10Z"))).toBe(true);
    const more = clusterStatus(
      {
        health: { state: "ready", kubernetesVersion: "v1.31.0" },
        discoveredWorkloads: 4,
        previous: connected,
      },
      t0,
    );
    expect(statusWorthWriting(connected, more, 300_000, t0)).toBe(true);
    expect(statusWorthWriting(undefined, connected, 300_000, t0)).toBe(true);
  });
});
