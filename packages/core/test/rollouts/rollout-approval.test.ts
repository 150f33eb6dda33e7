// An approval is bound to the plan's exact change (issue 37, item 4): its digest, and the
// operator's decision, which goes on only while the approval matches the plan as it is now.
import { describe, expect, it } from "vitest";
import {
  approvalHolds,
  decidePlan,
  planChangeDigest,
  type Approval,
  type ClusterObservation,
  type FeatureFlagSpec,
  type FlagRolloutSpec,
  type FlagRolloutStatus,
  type PlanCluster,
} from "../../src/index.ts";

const SPEC: FlagRolloutSpec = {
  flag: { namespace: "shop", name: "checkout" },
  change: { defaultValue: "true" },
  waves: [{ clusters: ["prod"], bakeSeconds: 30 }, { clusters: ["edge"] }],
};

const FLAG: FeatureFlagSpec = {
  type: "boolean",
  defaultValue: "false",
  delivery: { envVar: { selector: { matchLabels: { app: "web" } } } },
};

const approved = (spec: FlagRolloutSpec, by = "bob"): Approval => ({
  decision: "Approved",
  by,
  at: "2026-11-27T10:01:00Z",
  digest: planChangeDigest(spec),
});

describe("planChangeDigest", () => {
  it("changes with what the plan does: flag, change, waves, bakes, canary share, start, deadline", () => {
    const base = planChangeDigest(SPEC);
    const wave0 = SPEC.waves[0] ?? {};
    const edits: FlagRolloutSpec[] = [
      { ...SPEC, flag: { namespace: "shop", name: "other" } },
      { ...SPEC, change: { defaultValue: "false" } },
      { ...SPEC, change: { defaultValue: "true", enabled: true } },
      { ...SPEC, waves: [{ clusters: ["edge"] }, { ...wave0, clusters: ["prod"] }] },
      { ...SPEC, waves: [{ ...wave0, clusters: ["prod", "prod-2"] }, { clusters: ["edge"] }] },
      { ...SPEC, waves: [{ ...wave0, bakeSeconds: 0 }, { clusters: ["edge"] }] },
      { ...SPEC, waves: [{ ...wave0, workloadPercent: 10 }, { clusters: ["edge"] }] },
      { ...SPEC, waves: [{ clusterSelector: { matchLabels: { env: "prod" } } }] },
      { ...SPEC, startAt: "2026-12-01T09:00:00Z" },
      { ...SPEC, progressDeadlineSeconds: 3600 },
    ];
    const digests = edits.map(planChangeDigest);
    for (const digest of digests) expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set([base, ...digests]).size).toBe(edits.length + 1);
  });

  it("stays with key order, defaults written out, and the actions on a running plan", () => {
    const base = planChangeDigest(SPEC);
    const reordered = JSON.parse(
      '{"waves":[{"bakeSeconds":30,"clusters":["prod"]},{"clusters":["edge"]}],"change":{"defaultValue":"true"},"flag":{"name":"checkout","namespace":"shop"}}',
    ) as FlagRolloutSpec;
    expect(planChangeDigest(reordered)).toBe(base);
    const defaulted: FlagRolloutSpec = {
      ...SPEC,
      waves: [SPEC.waves[0] ?? {}, { clusters: ["edge"], bakeSeconds: 60 }],
      progressDeadlineSeconds: 600,
    };
    expect(planChangeDigest(defaulted)).toBe(base);
    expect(planChangeDigest({ ...SPEC, paused: true, abort: true, skipBake: 1 })).toBe(base);
  });
});

describe("approvalHolds", () => {
  it("holds only for an approval of this very plan", () => {
    expect(approvalHolds(SPEC, approved(SPEC))).toBe(true);
    expect(approvalHolds({ ...SPEC, paused: true }, approved(SPEC))).toBe(true);
    expect(approvalHolds({ ...SPEC, change: { defaultValue: "false" } }, approved(SPEC))).toBe(false);
    expect(approvalHolds(SPEC, undefined)).toBe(false);
    expect(approvalHolds(SPEC, { ...approved(SPEC), decision: "Rejected" })).toBe(false);
    // One recorded before approvals were bound (no digest) approves nothing.
    expect(approvalHolds(SPEC, { ...approved(SPEC), digest: undefined })).toBe(false);
  });
});

/** One operator round of a plan over prod (protected) and edge, whose flags hold `flags`. */
function round(spec: FlagRolloutSpec, status: FlagRolloutStatus, flags: Record<string, FeatureFlagSpec>) {
  const clusters = new Map<string, PlanCluster>([
    ["prod", { labels: {}, protected: true }],
    ["edge", { labels: {}, protected: false }],
  ]);
  const observed = new Map<string, ClusterObservation>(
    Object.entries(flags).map(([id, flag]) => [
      id,
      {
        reachable: true,
        flag: { spec: flag, generation: 1, observedGeneration: 1, phase: "Delivered", message: undefined },
        workloads: [],
      },
    ]),
  );
  return decidePlan({
    name: "checkout-on",
    spec,
    generation: 1,
    status,
    now: new Date("2026-11-27T10:02:00Z"),
    clusters,
    observed,
  });
}

describe("the operator's decision under an approval", () => {
  it("starts a protected plan under an approval of it, and not under one given before an edit", () => {
    const waiting = round(SPEC, {}, { prod: FLAG });
    expect(waiting.status.phase).toBe("AwaitingApproval");
    const started = round(SPEC, { ...waiting.status, approval: approved(SPEC) }, { prod: FLAG });
    expect(started.status.phase).toBe("Progressing");
    expect(started.writes.map((w) => w.clusterId)).toEqual(["prod"]);

    // kubectl edit after the approval: the change is no longer what bob approved.
    const edited: FlagRolloutSpec = { ...SPEC, change: { defaultValue: "true", enabled: false } };
    const voided = round(edited, { ...waiting.status, approval: approved(SPEC) }, { prod: FLAG });
    expect(voided.writes).toEqual([]);
    expect(voided.status.phase).toBe("AwaitingApproval");
    expect(voided.status.approval).toBeUndefined();
    expect(voided.status.message).toMatch(/^the approval by bob was of the plan before an edit; /);
    expect(voided.events.map((e) => e.reason)).toContain("ApprovalVoided");
    // The next rounds keep saying why, and record nothing new.
    const next = round(edited, voided.status, { prod: FLAG });
    expect(next.status).toEqual(voided.status);
    expect(next.events).toEqual([]);
    // Asked again, approved again: it goes on.
    const again = round(edited, { ...voided.status, approval: approved(edited, "carol") }, { prod: FLAG });
    expect(again.status.phase).toBe("Progressing");
    expect(again.writes[0]?.target.set).toEqual({ defaultValue: "true", enabled: false });
  });

  it("holds a running plan edited after its approval: no further write until approved again", () => {
    const status = round(SPEC, { approval: approved(SPEC) }, { prod: FLAG }).status;
    expect(status.waves?.[0]?.phase).toBe("Applying");
    // Changed while wave 0 is applied: the gate would write the new change to prod.
    const edited: FlagRolloutSpec = { ...SPEC, change: { defaultValue: "false", enabled: false } };
    const held = round(edited, status, { prod: { ...FLAG, defaultValue: "true" } });
    expect(held.writes).toEqual([]);
    expect(held.status.phase).toBe("AwaitingApproval");
    expect(held.status.approval).toBeUndefined();
    const resumed = round(
      edited,
      { ...held.status, approval: approved(edited, "carol") },
      {
        prod: { ...FLAG, defaultValue: "true" },
      },
    );
    expect(resumed.status.phase).toBe("Progressing");
    expect(resumed.writes).toEqual([
      { clusterId: "prod", target: { set: { defaultValue: "false", enabled: false }, remove: [] } },
    ]);
    // A pause is not an edit of what it does: the approval stands.
    const paused = round({ ...SPEC, paused: true }, status, { prod: { ...FLAG, defaultValue: "true" } });
    expect(paused.status.approval).toEqual(approved(SPEC));
    expect(paused.status.phase).toBe("Paused");
  });

  it("rolls back a running plan whose second asking is rejected", () => {
    const status = round(SPEC, { approval: approved(SPEC) }, { prod: FLAG }).status;
    const edited: FlagRolloutSpec = { ...SPEC, change: { defaultValue: "false" } };
    const held = round(edited, status, { prod: { ...FLAG, defaultValue: "true" } }).status;
    const rejected: Approval = { decision: "Rejected", by: "carol", at: "2026-11-27T10:03:00Z" };
    const back = round(edited, { ...held, approval: rejected }, { prod: { ...FLAG, defaultValue: "true" } });
    expect(back.status.phase).toBe("RollingBack");
    expect(back.writes).toEqual([
      { clusterId: "prod", target: { set: { defaultValue: "false" }, remove: [] } },
    ]);
  });
});
