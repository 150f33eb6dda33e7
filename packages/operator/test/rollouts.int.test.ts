// The operator's shell around FlagRollout decisions, against the real kube-apiserver: it records
// the plan's status, writes the flag's changed fields, records Events, waits for approval on a
// protected cluster, and fires a scheduled plan once, also across a restart spanning its time.
// (Health gates with real pods: test/e2e/node-rollout.test.ts.)
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import {
  API_GROUP,
  API_GROUP_VERSION,
  CLUSTER_CONNECTION,
  FLAG_ROLLOUT,
  planChangeDigest,
  PROTECTED_CLUSTER_LABEL,
  type FeatureFlagResource,
  type FlagRolloutResource,
  type FlagRolloutSpec,
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
let flags: ReturnType<typeof flagClient>;

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

async function createPlan(
  name: string,
  spec: Omit<FlagRolloutSpec, "flag"> & { flag?: FlagRolloutSpec["flag"] },
) {
  await custom.createNamespacedCustomObject({
    ...plans(),
    body: {
      apiVersion: API_GROUP_VERSION,
      kind: FLAG_ROLLOUT.kind,
      metadata: { name },
      spec: { flag: { namespace: ns, name }, ...spec },
    },
  });
}

const finished = (p: FlagRolloutResource) =>
  ["Succeeded", "RolledBack", "Failed", "Rejected"].includes(p.status?.phase ?? "");

beforeAll(async () => {
  ns = await testNamespace(kc, "op-rollouts");
  scope = await operatorScope(kc, "op-rollouts", [ns]);
  flags = flagClient(kc, ns);
  for (const name of ["toggle", "scheduled", "guarded", "conflict"])
    await flags.create(name, {
      type: "boolean",
      defaultValue: "false",
      delivery: { envVar: { selector: { matchLabels: { app: name } } } },
    });
  operator = await startOperator(scope);
}, 120_000);

afterAll(async () => {
  await operator?.close();
});

describe("the operator driving FlagRollouts", () => {
  it("writes the change, bakes, records status and Events, and changes nothing else of the flag", async () => {
    const before = await readFlag("toggle");
    await createPlan("toggle", {
      change: { defaultValue: "true", enabled: true },
      waves: [{ clusters: ["local"], bakeSeconds: 1 }],
    });
    const plan = await eventually(() => readPlan("toggle"), finished, "plan toggle finished", 60_000);
    expect(plan.status).toMatchObject({ phase: "Succeeded", currentWave: 0, observedGeneration: 1 });
    expect(plan.status?.waves?.[0]).toMatchObject({
      phase: "Succeeded",
      clusters: [{ id: "local", phase: "Succeeded", previous: { defaultValue: "false", enabled: true } }],
    });
    const after = await readFlag("toggle");
    expect(after.spec).toEqual({ ...before.spec, defaultValue: "true" });
    expect(after.metadata.generation).toBe((before.metadata.generation ?? 0) + 1);
    const events = await kc.makeApiClient(CoreV1Api).listNamespacedEvent({
      namespace: scope.systemNamespace,
      fieldSelector: `involvedObject.kind=${FLAG_ROLLOUT.kind},involvedObject.name=toggle`,
    });
    expect(events.items.map((e) => e.reason)).toEqual(
      expect.arrayContaining(["Started", "WaveStarted", "Baking", "WaveSucceeded", "Succeeded"]),
    );
  });

  it("fires a scheduled plan once at its time, also when the operator was down across it", async () => {
    const startAt = new Date(Date.now() + 6000);
    const before = await readFlag("scheduled");
    await createPlan("scheduled", {
      change: { enabled: false },
      startAt: startAt.toISOString().replace(/\.\d+Z$/, "Z"),
      waves: [{ clusters: ["local"], bakeSeconds: 0 }],
    });
    await eventually(
      () => readPlan("scheduled"),
      (p) => p.status?.phase === "Scheduled",
      "plan scheduled",
    );
    await operator?.close();
    operator = undefined;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt.getTime() - Date.now()) + 2000));
    expect((await readFlag("scheduled")).spec.enabled).toBe(true);
    operator = await startOperator(scope);
    const plan = await eventually(() => readPlan("scheduled"), finished, "plan scheduled finished", 30_000);
    expect(plan.status?.phase).toBe("Succeeded");
    expect(Date.parse(plan.status?.startedAt ?? "")).toBeGreaterThanOrEqual(startAt.getTime());
    // Once: one write, and none after another restart.
    await operator.close();
    operator = await startOperator(scope);
    await operator.idle();
    const after = await readFlag("scheduled");
    expect(after.spec.enabled).toBe(false);
    expect(after.metadata.generation).toBe((before.metadata.generation ?? 0) + 1);
  });

  it("waits for a second user's approval on a protected cluster", async () => {
    const patch = (labels: Record<string, string | null>) =>
      custom.patchNamespacedCustomObject(
        {
          group: API_GROUP,
          version: "v1alpha1",
          namespace: scope.systemNamespace,
          plural: CLUSTER_CONNECTION.plural,
          name: "local",
          body: { spec: { labels } },
        },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
    await patch({ [PROTECTED_CLUSTER_LABEL]: "true" });
    try {
      await createPlan("guarded", {
        change: { defaultValue: "true" },
        waves: [{ clusters: ["local"], bakeSeconds: 0 }],
      });
      const waiting = await eventually(
        () => readPlan("guarded"),
        (p) => p.status?.phase === "AwaitingApproval",
        "plan awaiting approval",
      );
      expect(waiting.status?.protectedClusters).toEqual(["local"]);
      expect((await readFlag("guarded")).spec.defaultValue).toBe("false");
      // The approval as the API writes it: into status, with the plan's resourceVersion.
      await custom.replaceNamespacedCustomObjectStatus({
        ...plans(),
        name: "guarded",
        body: {
          ...waiting,
          status: {
            ...waiting.status,
            approval: {
              decision: "Approved",
              by: "bob",
              at: new Date().toISOString(),
              digest: planChangeDigest(waiting.spec),
            },
          },
        },
      });
      const plan = await eventually(() => readPlan("guarded"), finished, "plan guarded finished", 30_000);
      expect(plan.status?.phase).toBe("Succeeded");
      expect((await readFlag("guarded")).spec.defaultValue).toBe("true");
    } finally {
      await patch({ [PROTECTED_CLUSTER_LABEL]: null });
    }
  });

  it("refuses a second unfinished plan of the same flag, and an invalid change, writing nothing", async () => {
    await createPlan("conflict", {
      change: { defaultValue: "true" },
      startAt: "2099-01-01T00:00:00Z",
      waves: [{ clusters: ["local"] }],
    });
    await custom.createNamespacedCustomObject({
      ...plans(),
      body: {
        apiVersion: API_GROUP_VERSION,
        kind: FLAG_ROLLOUT.kind,
        metadata: { name: "conflict-second" },
        spec: {
          flag: { namespace: ns, name: "conflict" },
          change: { defaultValue: "true" },
          waves: [{ clusters: ["local"] }],
        },
      },
    });
    const second = await eventually(() => readPlan("conflict-second"), finished, "second plan refused");
    expect(second.status).toMatchObject({
      phase: "Failed",
      message: "plan conflict of the same flag is unfinished; one plan per flag at a time",
    });
    await custom.createNamespacedCustomObject({
      ...plans(),
      body: {
        apiVersion: API_GROUP_VERSION,
        kind: FLAG_ROLLOUT.kind,
        metadata: { name: "invalid-value" },
        spec: {
          flag: { namespace: ns, name: "toggle" },
          change: { defaultValue: "maybe" },
          waves: [{ clusters: ["local"] }],
        },
      },
    });
    const invalid = await eventually(() => readPlan("invalid-value"), finished, "invalid plan refused");
    expect(invalid.status?.phase).toBe("Failed");
    expect(invalid.status?.message).toBe(
      "wave 0 failed its gate: cluster local: change.defaultValue: must be true or false for a boolean flag; nothing had been changed",
    );
    expect((await readFlag("conflict")).spec.defaultValue).toBe("false");
    expect((await readFlag("toggle")).spec.defaultValue).toBe("true");
  });
});
