// An approval is bound to the plan's exact change (issue 37, item 4), enforced by the operator
// against the real kube-apiserver: a FlagRollout edited with kubectl after its approval is not
// carried out until a second user approves it again. The local cluster is protected throughout.
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import {
  API_GROUP,
  API_GROUP_VERSION,
  CLUSTER_CONNECTION,
  FLAG_ROLLOUT,
  planChangeDigest,
  PROTECTED_CLUSTER_LABEL,
  type FeatureFlagResource,
  type FlagRolloutResource,
} from "@svc/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import type { RunningOperator } from "../src/index.ts";
import { flagClient, operatorScope, startOperator, type OperatorScope } from "./support/operator.ts";

const kc = testKubeConfig();
const custom = kc.makeApiClient(CustomObjectsApi);
let ns = "";
let scope: OperatorScope;
let operator: RunningOperator | undefined;

const plans = () => ({
  group: API_GROUP,
  version: "v1alpha1",
  namespace: scope.systemNamespace,
  plural: FLAG_ROLLOUT.plural,
});
const readPlan = async (name: string) =>
  (await custom.getNamespacedCustomObject({ ...plans(), name })) as FlagRolloutResource;
const readFlag = async (name: string) =>
  (await custom.getNamespacedCustomObject({
    group: API_GROUP,
    version: "v1alpha1",
    namespace: ns,
    plural: "featureflags",
    name,
  })) as FeatureFlagResource;

/**
 * The approval as the API writes it: into status, bound to the plan it read, read again when the
 * operator wrote the status in between (as the API's updatePlanStatus does).
 */
async function approve(name: string, by: string): Promise<FlagRolloutResource> {
  for (let attempt = 0; ; attempt++) {
    const plan = await readPlan(name);
    const approval = {
      decision: "Approved",
      by,
      at: new Date().toISOString(),
      digest: planChangeDigest(plan.spec),
    };
    try {
      await custom.replaceNamespacedCustomObjectStatus({
        ...plans(),
        name,
        body: { ...plan, status: { ...plan.status, approval } },
      });
      return plan;
    } catch (error) {
      if ((error as { code?: number }).code !== 409 || attempt >= 5) throw error;
    }
  }
}

beforeAll(async () => {
  ns = await testNamespace(kc, "op-approval");
  scope = await operatorScope(kc, "op-approval", [ns]);
  await custom.patchNamespacedCustomObject(
    {
      group: API_GROUP,
      version: "v1alpha1",
      namespace: scope.systemNamespace,
      plural: CLUSTER_CONNECTION.plural,
      name: "local",
      body: { spec: { labels: { [PROTECTED_CLUSTER_LABEL]: "true" } } },
    },
    setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
  );
  await flagClient(kc, ns).create("checkout", {
    type: "string",
    defaultValue: "old",
    delivery: { envVar: { selector: { matchLabels: { app: "checkout" } } } },
  });
  operator = await startOperator(scope);
}, 120_000);

afterAll(async () => {
  await operator?.close();
});

describe("an approved plan edited afterwards", () => {
  it("is not carried out until approved again, then carries out the edited change", async () => {
    // Approved, and scheduled far ahead: the approval alone starts nothing yet.
    await custom.createNamespacedCustomObject({
      ...plans(),
      body: {
        apiVersion: API_GROUP_VERSION,
        kind: FLAG_ROLLOUT.kind,
        metadata: { name: "checkout" },
        spec: {
          flag: { namespace: ns, name: "checkout" },
          change: { defaultValue: "reviewed" },
          startAt: "2099-01-01T00:00:00Z",
          waves: [{ clusters: ["local"], bakeSeconds: 0 }],
        },
      },
    });
    await eventually(
      () => readPlan("checkout"),
      (p) => p.status?.phase === "AwaitingApproval",
      "plan awaiting approval",
    );
    await approve("checkout", "bob");
    await eventually(
      () => readPlan("checkout"),
      (p) => p.status?.phase === "Scheduled",
      "plan scheduled",
    );

    // kubectl edit: another value, due at once. Were the approval still taken, it would start now.
    await custom.patchNamespacedCustomObject(
      {
        ...plans(),
        name: "checkout",
        body: [
          { op: "replace", path: "/spec/change/defaultValue", value: "unreviewed" },
          { op: "remove", path: "/spec/startAt" },
        ],
      },
      setHeaderOptions("Content-Type", PatchStrategy.JsonPatch),
    );
    const voided = await eventually(
      () => readPlan("checkout"),
      (p) => p.status?.phase !== "Scheduled" && (p.status?.observedGeneration ?? 0) >= 2,
      "the edit seen",
    );
    expect(voided.status?.phase).toBe("AwaitingApproval");
    expect(voided.status?.approval).toBeUndefined();
    expect(voided.status?.message).toMatch(/^the approval by bob was of the plan before an edit; /);
    expect(voided.status?.waves).toBeUndefined();
    await operator?.idle();
    expect((await readFlag("checkout")).spec.defaultValue).toBe("old");

    // A second user approves the plan as it is now: it goes ahead with the edited change.
    expect((await approve("checkout", "carol")).spec.change).toEqual({ defaultValue: "unreviewed" });
    const done = await eventually(
      () => readPlan("checkout"),
      (p) => ["Succeeded", "RolledBack", "Failed", "Rejected"].includes(p.status?.phase ?? ""),
      "plan finished",
      60_000,
    );
    expect(done.status?.phase).toBe("Succeeded");
    expect((await readFlag("checkout")).spec.defaultValue).toBe("unreviewed");
  });
});
