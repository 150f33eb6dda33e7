// What the plan verbs print: a row per plan, a plan's timeline (waves → clusters → their phase and
// message), and watch's line per change between two reads of a plan.
import { describe, expect, it } from "vitest";
import {
  phaseText,
  renderRollouts,
  renderTimeline,
  watchLines,
  type RolloutView,
} from "../src/flags/rollout-render.ts";

const created: RolloutView = {
  name: "checkout-eu",
  author: "ed",
  createdAt: "2026-11-27T10:00:00Z",
  spec: {
    flag: { namespace: "shop", name: "checkout" },
    change: { defaultValue: "true" },
    waves: [
      { clusters: ["local"], bakeSeconds: 120 },
      { clusterSelector: { matchLabels: { region: "eu" } }, bakeSeconds: 300 },
    ],
  },
  status: {},
};

/** The plan rolling back: wave 0 done, wave 1's gate failed on eu-2. */
const rollingBack: RolloutView = {
  ...created,
  status: {
    phase: "RollingBack",
    currentWave: 1,
    startedAt: "2026-11-27T10:00:05Z",
    message: "wave 1: Deployment web in eu-2 is unhealthy",
    waves: [
      {
        phase: "Succeeded",
        startedAt: "2026-11-27T10:00:05Z",
        finishedAt: "2026-11-27T10:02:10Z",
        clusters: [{ id: "local", phase: "Succeeded", deliveredAt: "2026-11-27T10:00:08Z" }],
      },
      {
        phase: "Failed",
        startedAt: "2026-11-27T10:02:10Z",
        message: "gate failed",
        clusters: [
          {
            id: "eu-1",
            phase: "Baking",
            workloads: [{ kind: "Deployment", name: "web", health: "Healthy" }],
          },
          {
            id: "eu-2",
            phase: "Failed",
            message: "Deployment web is unhealthy",
            workloads: [
              { kind: "Deployment", name: "web", health: "Unhealthy", message: "CrashLoopBackOff" },
              { kind: "StatefulSet", name: "db", health: "Healthy" },
            ],
          },
        ],
      },
    ],
  },
};

describe("rows", () => {
  it("show one line per plan: its flag, change, phase (with what was asked), waves and author", () => {
    expect(renderRollouts([created, { ...rollingBack, name: "b", author: "" }], "table")).toBe(
      "NAME         FLAG           CHANGE               PHASE        WAVES  CURRENT  AUTHOR  CREATED\n" +
        'checkout-eu  shop/checkout  defaultValue="true"  Pending      2      -        ed      2026-11-27T10:00:00Z\n' +
        'b            shop/checkout  defaultValue="true"  RollingBack  2      1        -       2026-11-27T10:00:00Z\n',
    );
    expect(renderRollouts([], "table")).toBe("no plans\n");
    expect(JSON.parse(renderRollouts(created, "json"))).toEqual(created);
    expect(renderRollouts(created, "yaml")).toContain("name: checkout-eu\n");
  });

  it("show an asked pause, resume or abort until the operator acts on it", () => {
    const at = (phase: "Progressing" | "Paused" | "Succeeded", spec: Partial<RolloutView["spec"]>) =>
      phaseText({ ...created, spec: { ...created.spec, ...spec }, status: { phase } });
    expect(phaseText(created)).toBe("Pending");
    expect(at("Progressing", { paused: true })).toBe("Progressing (pause asked)");
    expect(at("Paused", { paused: true })).toBe("Paused");
    expect(at("Paused", { paused: false })).toBe("Paused (resume asked)");
    expect(at("Progressing", { abort: true, paused: true })).toBe("Progressing (abort asked)");
    expect(at("Succeeded", { abort: true })).toBe("Succeeded");
  });
});

describe("the timeline of get", () => {
  it("shows the plan, then each wave with its clusters, their phase and message, and unhealthy workloads", () => {
    expect(
      renderTimeline({ ...rollingBack, spec: { ...rollingBack.spec, startAt: "2026-11-27T10:00:00Z" } }),
    ).toBe(
      [
        "plan:     checkout-eu",
        "flag:     shop/checkout",
        'change:   defaultValue="true"',
        "created:  2026-11-27T10:00:00Z by ed",
        "starts:   2026-11-27T10:00:00Z",
        "phase:    RollingBack, wave 1",
        "started:  2026-11-27T10:00:05Z",
        "message:  wave 1: Deployment web in eu-2 is unhealthy",
        "waves:",
        "  wave 0  Succeeded  local, bake 120s (started 2026-11-27T10:00:05Z, finished 2026-11-27T10:02:10Z)",
        "    local  Succeeded  delivered 2026-11-27T10:00:08Z",
        "  wave 1  Failed  clusters with region=eu, bake 300s (started 2026-11-27T10:02:10Z): gate failed",
        "    eu-1  Baking",
        "    eu-2  Failed: Deployment web is unhealthy",
        "      Deployment web  Unhealthy: CrashLoopBackOff",
        "",
      ].join("\n"),
    );
  });

  it("shows a wave's canary step: its share, the canary workloads and how many are held back", () => {
    const canary: RolloutView = {
      ...created,
      spec: { ...created.spec, waves: [{ clusters: ["local"], bakeSeconds: 120, workloadPercent: 10 }] },
      status: {
        phase: "Progressing",
        currentWave: 0,
        waves: [
          {
            phase: "Baking",
            stage: "Canary",
            clusters: [
              {
                id: "local",
                phase: "Baking",
                canary: [{ kind: "Deployment", name: "api", matchLabels: { app: "api" } }],
                workloads: [
                  { kind: "Deployment", name: "api", health: "Healthy", canary: true },
                  { kind: "Deployment", name: "web", health: "Waiting", canary: false },
                  { kind: "Deployment", name: "worker", health: "Waiting", canary: false },
                ],
              },
            ],
          },
        ],
      },
    };
    expect(renderTimeline(canary).split("\n").slice(-6)).toEqual([
      "waves:",
      "  wave 0  Baking  local, bake 120s, 10% of workloads first (canary step)",
      "    local  Baking",
      "      canary: Deployment api",
      "      2 more held back until the canary passed",
      "",
    ]);
  });

  it("shows a plan the operator has not picked up as its spec's waves, Pending", () => {
    expect(renderTimeline({ ...created, author: "" })).toBe(
      [
        "plan:     checkout-eu",
        "flag:     shop/checkout",
        'change:   defaultValue="true"',
        "created:  2026-11-27T10:00:00Z by (unknown: not through the API)",
        "phase:    Pending",
        "waves:",
        "  wave 0  Pending  local, bake 120s",
        "  wave 1  Pending  clusters with region=eu, bake 300s",
        "",
      ].join("\n"),
    );
  });

  it("shows the approval and the protected clusters", () => {
    const text = renderTimeline({
      ...created,
      status: {
        phase: "Scheduled",
        protectedClusters: ["eu-2"],
        approval: {
          decision: "Approved",
          by: "bob",
          at: "2026-11-27T10:05:00Z",
          comment: "checked with ops",
        },
      },
    });
    expect(text).toContain("protected:  eu-2 (a second user approves)\n");
    expect(text).toContain("approval:   Approved by bob at 2026-11-27T10:05:00Z: checked with ops\n");
  });
});

describe("watch's lines", () => {
  it("print the whole state first, then only what changed", () => {
    expect(watchLines(undefined, created)).toEqual(["plan checkout-eu Pending"]);
    expect(watchLines(created, created)).toEqual([]);
    const progressing: RolloutView = {
      ...created,
      status: {
        phase: "Progressing",
        currentWave: 0,
        waves: [
          { phase: "Applying", clusters: [{ id: "local", phase: "Applying" }] },
          { phase: "Pending", clusters: [{ id: "eu-1", phase: "Pending" }] },
        ],
      },
    };
    expect(watchLines(created, progressing)).toEqual([
      "plan checkout-eu Progressing",
      "wave 0 Applying",
      "wave 0 cluster local Applying",
      "wave 1 Pending",
      "wave 1 cluster eu-1 Pending",
    ]);
    expect(watchLines(progressing, rollingBack)).toEqual([
      "plan checkout-eu RollingBack: wave 1: Deployment web in eu-2 is unhealthy",
      "wave 0 Succeeded",
      "wave 0 cluster local Succeeded",
      "wave 1 Failed: gate failed",
      "wave 1 cluster eu-1 Baking",
      "wave 1 cluster eu-2 Failed: Deployment web is unhealthy",
      "wave 1 cluster eu-2 Deployment web Unhealthy: CrashLoopBackOff",
    ]);
  });

  it("print a new message, an approval and an asked pause", () => {
    const waiting: RolloutView = {
      ...created,
      status: { phase: "AwaitingApproval", message: "eu-2 is protected" },
    };
    expect(watchLines(created, waiting)).toEqual(["plan checkout-eu AwaitingApproval: eu-2 is protected"]);
    const approved: RolloutView = {
      ...waiting,
      status: {
        ...waiting.status,
        message: "approved",
        approval: { decision: "Approved", by: "bob", at: "2026-11-27T10:05:00Z" },
      },
    };
    expect(watchLines(waiting, approved)).toEqual([
      "plan checkout-eu: approved",
      "plan checkout-eu Approved by bob at 2026-11-27T10:05:00Z",
    ]);
    const pausing = { ...approved, spec: { ...approved.spec, paused: true } };
    expect(watchLines(approved, pausing)).toEqual([
      "plan checkout-eu AwaitingApproval (pause asked): approved",
    ]);
  });
});
