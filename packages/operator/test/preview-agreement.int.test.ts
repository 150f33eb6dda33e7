// The API's preview and the operator agree: for random selectors and workloads, the workloads
// core's previewFlag lists (as the REST API shows them before saving) are exactly those the
// operator then patches with the flag's variable.
import { AppsV1Api } from "@kubernetes/client-node";
import { previewFlag, type FeatureFlagResource, type Workload } from "@svc/core";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import type { RunningOperator } from "../src/index.ts";
import {
  createWorkloads,
  flagClient,
  operatorScope,
  startOperator,
  type Labels,
} from "./support/operator.ts";

const kc = testKubeConfig();
const apps = kc.makeApiClient(AppsV1Api);
let ns: string;
let operator: RunningOperator;
let flags: ReturnType<typeof flagClient>;

beforeAll(async () => {
  ns = await testNamespace(kc, "op-preview");
  const scope = await operatorScope(kc, "op-preview", [ns]);
  flags = flagClient(kc, ns);
  operator = await startOperator(scope);
});

afterAll(async () => {
  await operator.close();
});

const KINDS = ["Deployment", "StatefulSet", "DaemonSet"] as const;
const labels = fc.dictionary(fc.constantFrom("team", "tier", "env"), fc.constantFrom("a", "b"), {
  maxKeys: 3,
});
const workloadsArb = fc.array(fc.record({ kind: fc.constantFrom(...KINDS), labels, podLabels: labels }), {
  minLength: 1,
  maxLength: 5,
});
const selectorArb = fc.dictionary(fc.constantFrom("team", "tier", "env"), fc.constantFrom("a", "b"), {
  minKeys: 1,
  maxKeys: 2,
});

/** Every workload of the namespace, as the API's caches hold them. */
async function namespaceWorkloads(): Promise<Workload[]> {
  const [deployments, statefulSets, daemonSets] = await Promise.all([
    apps.listNamespacedDeployment({ namespace: ns }),
    apps.listNamespacedStatefulSet({ namespace: ns }),
    apps.listNamespacedDaemonSet({ namespace: ns }),
  ]);
  return [
    ...deployments.items.map((object) => ({ kind: "Deployment" as const, object })),
    ...statefulSets.items.map((object) => ({ kind: "StatefulSet" as const, object })),
    ...daemonSets.items.map((object) => ({ kind: "DaemonSet" as const, object })),
  ];
}

const carries = (workload: Workload, variable: string) =>
  workload.object.spec?.template.spec?.containers.some((c) => c.env?.some((e) => e.name === variable)) ===
  true;

let run = 0;

describe("preview and delivery", () => {
  it("the preview lists exactly the workloads the operator patches", async () => {
    await fc.assert(
      fc.asyncProperty(workloadsArb, selectorArb, async (generated, selector) => {
        run++;
        // A run label on both sides keeps each run's flag to its own workloads.
        const runLabel: Labels = { run: String(run) };
        await createWorkloads(
          kc,
          ns,
          generated.map((w, i) => ({
            kind: w.kind,
            name: `r${run}-${i}`,
            labels: { ...w.labels, ...runLabel },
            podLabels: { ...w.podLabels, ...runLabel },
          })),
        );
        const name = `flag-${run}`;
        const spec = {
          type: "boolean",
          defaultValue: "true",
          delivery: { envVar: { selector: { matchLabels: { ...selector, ...runLabel } } } },
        } as const;
        const candidate: FeatureFlagResource = { metadata: { name, namespace: ns }, spec };
        const preview = previewFlag({
          candidate,
          workloads: await namespaceWorkloads(),
          namespaceFlags: [],
          cluster: { id: "local", labels: {} },
        });
        await flags.create(name, spec);
        const flag = await eventually(
          () => flags.get(name),
          (f) => f.status?.observedGeneration === f.metadata.generation && f.status?.phase !== "Pending",
          `${name} delivered`,
        );
        await operator.idle();
        const variable = `FLAG_FLAG_${run}`;
        const patched = (await namespaceWorkloads())
          .filter((w) => carries(w, variable))
          .map((w) => `${w.kind}/${w.object.metadata?.name ?? ""}`)
          .sort();
        expect(patched).toEqual(preview.map((e) => `${e.kind}/${e.name}`).sort());
        expect(flag.status?.targets?.map((t) => `${t.kind}/${t.name}`).sort()).toEqual(patched);
        await flags.remove(name);
        await eventually(
          async () => (await flags.list()).some((f) => f.metadata.name === name),
          (present) => !present,
          `${name} withdrawn and deleted`,
        );
      }),
      { numRuns: 8 },
    );
  });
});
