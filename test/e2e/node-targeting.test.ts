// A targeted envVar flag seen from inside running pods, on the real node: the operator (in this
// process) evaluates the flag's rule per Deployment, so each Deployment's process sees its own
// value; a rewritten rule that changes no value leaves the pods running as they are.
import { AppsV1Api, type V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { flagClient, operatorScope, startOperator } from "../../packages/operator/test/support/operator.ts";
import type { RunningOperator } from "../../packages/operator/src/index.ts";
import { eventually, testKubeConfig, testNamespace } from "../support/kube.ts";
import { demoPodTemplate, describeOnNode, readyPods, seenFlags } from "../support/node.ts";

const kc = testKubeConfig();
const apps = kc.makeApiClient(AppsV1Api);
const TIERS = { front: "front", back: "back" } as const;
let ns = "";
let operator: RunningOperator | undefined;
let flags: ReturnType<typeof flagClient>;

const byTier = { if: [{ "==": [{ var: "labels.tier" }, "front"] }, "fast", "safe"] };
/** The same choice written otherwise: every Deployment keeps its value. */
const rewritten = { if: [{ in: [{ var: "labels.tier" }, ["front", "edge"]] }, "fast", "safe"] };

const podNames = (pods: V1Pod[]) => pods.map((p) => p.metadata?.name ?? "").sort();
/** FLAG_MODE as each Deployment's running process sees it, with its pods' names. */
async function seen(app: string) {
  const pods = await readyPods(kc, ns, app, 1, 120_000);
  const values = await Promise.all(
    pods.map(async (p) => (await seenFlags(kc, ns, p.metadata?.name ?? "")).env["FLAG_MODE"]),
  );
  return { pods: podNames(pods), value: values[0] };
}
const deploymentState = async (name: string) => {
  const d = await apps.readNamespacedDeployment({ namespace: ns, name });
  return {
    generation: d.metadata?.generation,
    revision: d.metadata?.annotations?.["deployment.kubernetes.io/revision"],
  };
};

describeOnNode("a targeted flag seen by running pods on a real node", () => {
  beforeAll(async () => {
    ns = await testNamespace(kc, "node-targeting");
    const scope = await operatorScope(kc, "node-targeting", [ns]);
    flags = flagClient(kc, ns);
    operator = await startOperator(scope);
  });

  afterAll(async () => {
    await operator?.close();
  });

  it("each Deployment's process sees its own value; a rule rewritten to the same values restarts no pod", async () => {
    await flags.create("mode", {
      type: "string",
      variants: { fast: "fast", safe: "safe" },
      defaultVariant: "safe",
      defaultValue: "safe",
      targeting: byTier,
      delivery: { envVar: { selector: { matchLabels: { targeted: "yes" } } } },
    });
    for (const [name, tier] of Object.entries(TIERS)) {
      await apps.createNamespacedDeployment({
        namespace: ns,
        body: {
          metadata: { name, labels: { targeted: "yes", tier } },
          spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: demoPodTemplate(name) },
        },
      });
    }
    // The first pod may have started before the flag reached the template: wait for the value.
    const front = await eventually(
      () => seen("front"),
      (s) => s.value !== undefined,
      "front's value",
      120_000,
    );
    const back = await eventually(
      () => seen("back"),
      (s) => s.value !== undefined,
      "back's value",
      120_000,
    );
    expect([front.value, back.value]).toEqual(["fast", "safe"]);
    const before = { front: await deploymentState("front"), back: await deploymentState("back") };

    await flags.patchSpec("mode", { targeting: rewritten });
    const generation = (await flags.get("mode")).metadata.generation;
    await eventually(
      () => flags.get("mode"),
      (f) => f.status?.observedGeneration === generation && f.status?.phase === "Delivered",
      "the rewritten rule Delivered",
    );
    await operator?.idle();
    expect({ front: await deploymentState("front"), back: await deploymentState("back") }).toEqual(before);
    expect(await seen("front")).toEqual(front);
    expect(await seen("back")).toEqual(back);
  });
});
