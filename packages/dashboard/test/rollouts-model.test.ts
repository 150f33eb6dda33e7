// What the rollout pages say of a plan: badges for every phase, the wave in flight, the bake
// countdown, the timeline rows from a status (the operator's messages kept as written), and the
// actions offered by state and role (never Approve to the author).
import { ROUTE_RULES, authorizeRoute, type Role } from "@svc/core";
import { describe, expect, it } from "vitest";
import {
  countdownText,
  currentWaveText,
  durationText,
  filterOf,
  isFinished,
  planActions,
  planBadge,
  waveBadge,
} from "../app/rollouts/rollout-model.ts";
import { changeSummary, timelineOf, waveCountdown } from "../app/rollouts/timeline-model.ts";
import type { RolloutStatus, RolloutView } from "../app/rollouts/types.ts";

const T0 = Date.parse("2026-11-27T10:00:00Z");
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

function plan(patch: Partial<RolloutView> = {}, status: RolloutStatus = {}): RolloutView {
  return {
    name: "checkout-a1b2c",
    author: "alice",
    createdAt: at(0),
    spec: {
      flag: { namespace: "shop", name: "checkout" },
      change: { defaultValue: "true" },
      waves: [
        { clusters: ["local"], bakeSeconds: 5 },
        { clusterSelector: { matchLabels: { region: "eu" } } },
      ],
    },
    status,
    ...patch,
  };
}

const can = (role: Role) => (route: string) => authorizeRoute(ROUTE_RULES, route, role).outcome === "allow";

describe("badges and the wave in flight", () => {
  it.each([
    ["Pending", "Pending", ""],
    ["AwaitingApproval", "Awaiting approval", "warn"],
    ["Scheduled", "Scheduled", ""],
    ["Progressing", "Progressing", "warn"],
    ["Paused", "Paused", "warn"],
    ["RollingBack", "Rolling back", "bad"],
    ["Succeeded", "Succeeded", "ok"],
    ["RolledBack", "Rolled back", "bad"],
    ["Rejected", "Rejected", ""],
    ["Failed", "Failed", "bad"],
  ] as const)("plan phase %s reads %s (%s)", (phase, label, tone) => {
    expect(planBadge(phase)).toEqual({ label, tone });
  });

  it("colours wave phases by outcome", () => {
    expect(waveBadge("Baking")).toEqual({ label: "Baking", tone: "warn" });
    expect(waveBadge("Succeeded").tone).toBe("ok");
    expect(waveBadge("RolledBack")).toEqual({ label: "Rolled back", tone: "bad" });
  });

  it("counts the wave in flight from one, of the frozen waves once the plan started", () => {
    expect(currentWaveText(plan())).toBe("— / 2");
    const started = { phase: "Pending" as const, clusters: [] };
    expect(
      currentWaveText(plan({}, { phase: "Progressing", currentWave: 1, waves: [started, started] })),
    ).toBe("2 / 2");
    expect(currentWaveText(plan({}, { phase: "Progressing", waves: [started, started] }))).toBe("1 / 2");
  });

  it("knows a plan without a phase is unfinished (Pending)", () => {
    expect(isFinished(plan())).toBe(false);
    expect(isFinished(plan({}, { phase: "RolledBack" }))).toBe(true);
  });

  it("reads the list's filters from the URL, ignoring an unknown phase", () => {
    expect(filterOf(new URLSearchParams("phase=Paused&flag=shop/checkout"))).toEqual({
      phase: "Paused",
      flag: "shop/checkout",
    });
    expect(filterOf(new URLSearchParams("phase=Sleeping"))).toEqual({});
  });
});

describe("the bake countdown", () => {
  it("says the time left in its two largest units, then baked", () => {
    expect(durationText(3600)).toBe("1 h");
    expect(durationText(3725)).toBe("1 h 2 min");
    expect(durationText(303)).toBe("5 min 3 s");
    expect(durationText(42)).toBe("42 s");
    expect(countdownText(at(3600), T0)).toBe("1 h left");
    expect(countdownText(at(61), T0 + 500)).toBe("1 min 1 s left");
    expect(countdownText(at(10), T0 + 10_000)).toBe("baked");
    expect(countdownText(undefined, T0)).toBeUndefined();
  });

  it("is shown on a baking wave only", () => {
    expect(waveCountdown({ phase: "Baking", bakeUntil: at(30) }, T0)).toBe("30 s left");
    expect(waveCountdown({ phase: "Succeeded", bakeUntil: at(30) }, T0)).toBeUndefined();
  });
});

describe("the timeline", () => {
  it("shows the planned waves, all Pending, before the operator fixes them", () => {
    const rows = timelineOf(plan());
    expect(rows.map((r) => [r.title, r.badge.label, r.target, r.bake])).toEqual([
      ["Wave 0 (1 of 2)", "Pending", "clusters local", "bake 5 s"],
      ["Wave 1 (2 of 2)", "Pending", "clusters labelled region=eu", "bake 1 min"],
    ]);
    expect(rows[0]?.clusters.map((c) => c.id)).toEqual(["local"]);
    expect(rows[1]?.clusters).toEqual([]);
  });

  it("rows waves → clusters → workloads with the gate's reason as the operator wrote it", () => {
    const reason = "cluster local: web-7c9f: CrashLoopBackOff after the change";
    const rows = timelineOf(
      plan(
        {},
        {
          phase: "RollingBack",
          currentWave: 0,
          message: `wave 0 failed its gate: ${reason}`,
          waves: [
            {
              phase: "Failed",
              startedAt: at(0),
              bakeUntil: at(5),
              finishedAt: at(8),
              message: reason,
              clusters: [
                {
                  id: "local",
                  phase: "Failed",
                  message: reason,
                  deliveredAt: at(1),
                  workloads: [
                    {
                      kind: "Deployment",
                      name: "web",
                      health: "Unhealthy",
                      message: "web-7c9f: CrashLoopBackOff after the change",
                    },
                  ],
                },
              ],
            },
            { phase: "Pending", clusters: [{ id: "eu-1", phase: "Pending" }] },
          ],
        },
      ),
    );
    expect(rows[0]).toMatchObject({
      phase: "Failed",
      badge: { label: "Failed", tone: "bad" },
      current: true,
      message: reason,
      finishedAt: at(8),
      clusters: [
        {
          id: "local",
          badge: { label: "Failed", tone: "bad" },
          message: reason,
          workloads: [
            {
              title: "Deployment web",
              badge: { label: "Unhealthy", tone: "bad" },
              message: "web-7c9f: CrashLoopBackOff after the change",
            },
          ],
        },
      ],
    });
    expect(rows[1]).toMatchObject({
      current: false,
      target: "clusters labelled region=eu",
      clusters: [{ id: "eu-1" }],
    });
  });

  it("shows a wave's share of workloads first, its step, the canary workloads and the held-back ones", () => {
    const spec = { ...plan().spec, waves: [{ clusters: ["local"], bakeSeconds: 5, workloadPercent: 10 }] };
    const [wave] = timelineOf({
      spec,
      status: {
        phase: "Progressing",
        waves: [
          {
            phase: "Baking",
            stage: "Canary",
            clusters: [
              {
                id: "local",
                phase: "Baking",
                workloads: [
                  { kind: "Deployment", name: "api", health: "Healthy", canary: true },
                  { kind: "Deployment", name: "web", health: "Waiting", canary: false },
                ],
              },
            ],
          },
        ],
      },
    });
    expect(wave?.bake).toBe("bake 5 s; 10 % of each cluster's workloads first (canary step)");
    expect(wave?.clusters[0]?.workloads.map((w) => [w.title, w.badge.label])).toEqual([
      ["Deployment api (canary)", "Healthy"],
      ["Deployment web", "Held back"],
    ]);
    expect(timelineOf({ spec, status: {} })[0]?.bake).toBe(
      "bake 5 s; 10 % of each cluster's workloads first",
    );
  });

  it("summarizes the change", () => {
    expect(changeSummary({ defaultValue: "42", enabled: false, targeting: {} })).toBe(
      "defaultValue 42, disabled, targeting",
    );
  });
});

describe("the actions offered", () => {
  const baking = {
    phase: "Progressing" as const,
    currentWave: 0,
    waves: [
      { phase: "Baking" as const, bakeUntil: at(60), clusters: [{ id: "local", phase: "Baking" as const }] },
      { phase: "Pending" as const, clusters: [{ id: "eu-1", phase: "Pending" as const }] },
    ],
  };
  const awaiting = { phase: "AwaitingApproval" as const, protectedClusters: ["eu-2"] };

  it("offers pause, skip bake and abort while a wave bakes; resume once paused", () => {
    expect(planActions(plan({}, baking), { username: "bob" }, can("editor"))).toEqual([
      "pause",
      "skip-bake",
      "abort",
    ]);
    const paused = plan(
      { spec: { ...plan().spec, paused: true, skipBake: 0 } },
      { ...baking, phase: "Paused" },
    );
    expect(planActions(paused, { username: "bob" }, can("editor"))).toEqual(["resume", "abort"]);
  });

  it("offers nothing while the plan rolls back, and only Delete once finished", () => {
    expect(
      planActions(plan({ spec: { ...plan().spec, abort: true } }, baking), { username: "bob" }, can("admin")),
    ).toEqual([]);
    expect(planActions(plan({}, { phase: "RollingBack" }), { username: "bob" }, can("admin"))).toEqual([]);
    expect(planActions(plan({}, { phase: "RolledBack" }), { username: "bob" }, can("admin"))).toEqual([
      "delete",
    ]);
  });

  it("never offers Approve to the plan's author, who may still reject", () => {
    expect(planActions(plan({}, awaiting), { username: "bob" }, can("editor"))).toEqual([
      "approve",
      "reject",
      "pause",
      "abort",
    ]);
    expect(planActions(plan({}, awaiting), { username: "alice" }, can("admin"))).toEqual([
      "reject",
      "pause",
      "abort",
    ]);
    // Created with kubectl: anyone with the role may approve.
    expect(planActions(plan({ author: "" }, awaiting), { username: "alice" }, can("admin"))).toContain(
      "approve",
    );
    const decided = { ...awaiting, approval: { decision: "Approved" as const, by: "bob", at: at(1) } };
    expect(planActions(plan({}, decided), { username: "bob" }, can("admin"))).toEqual(["pause", "abort"]);
  });

  it("offers a viewer nothing, by the API's own access table", () => {
    expect(planActions(plan({}, baking), { username: "vi" }, can("viewer"))).toEqual([]);
    expect(planActions(plan({}, awaiting), { username: "vi" }, can("viewer"))).toEqual([]);
    expect(planActions(plan({}, { phase: "Succeeded" }), { username: "vi" }, can("viewer"))).toEqual([]);
  });
});
