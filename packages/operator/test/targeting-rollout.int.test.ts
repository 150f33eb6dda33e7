// A percentage rollout over workloads, through the REST API and the operator on a real
// kube-apiserver and kube-controller-manager (Deployments get revisions and ReplicaSets without
// pods): the API's preview (?dryRun=true) names each Deployment's value and whether it restarts;
// saving changes exactly those; a rewritten rule that changes no value restarts nothing.
import { AppsV1Api } from "@kubernetes/client-node";
import { compileFlag, evaluateFlag, workloadContext } from "@svc/core/targeting/flagd";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startClusterApi, type ClusterApi } from "../../api/test/support/cluster-api.ts";
import { eventually, testNamespace } from "../../../test/support/kube.ts";
import type { RunningOperator } from "../src/index.ts";
import { createWorkloads, flagClient, operatorScope, startOperator } from "./support/operator.ts";

const COUNT = 10;
const VARIABLE = "FLAG_ROLLOUT";
let env: ClusterApi;
let apps: AppsV1Api;
let ns: string;
let operator: RunningOperator;
let flags: ReturnType<typeof flagClient>;

interface PreviewEntry {
  name: string;
  restarts: boolean;
  value?: string;
}

/** Per Deployment: its variable's value, generation, revision and ReplicaSets, once the controller caught up. */
async function deployments() {
  const settled = await eventually(
    async () => ({
      list: (await apps.listNamespacedDeployment({ namespace: ns })).items,
      replicaSets: (await apps.listNamespacedReplicaSet({ namespace: ns })).items,
    }),
    ({ list }) => list.every((d) => d.status?.observedGeneration === d.metadata?.generation),
    "every Deployment observed by kube-controller-manager",
  );
  return Object.fromEntries(
    settled.list.map((d) => {
      const name = d.metadata?.name ?? "";
      return [
        name,
        {
          value: d.spec?.template.spec?.containers[0]?.env?.find((e) => e.name === VARIABLE)?.value,
          generation: d.metadata?.generation,
          revision: d.metadata?.annotations?.["deployment.kubernetes.io/revision"],
          replicaSets: settled.replicaSets.filter((rs) =>
            rs.metadata?.ownerReferences?.some((o) => o.kind === "Deployment" && o.name === name),
          ).length,
        },
      ];
    }),
  );
}

/** PUTs the stored flag with `targeting`: a dry run answers the preview, else the operator delivers it. */
async function putTargeting(targeting: Record<string, unknown>, dryRun: boolean): Promise<PreviewEntry[]> {
  const path = `/api/v1/flags/${ns}/rollout?clusterId=local`;
  const current = await env.api.call("GET", path, { token: env.tokens.editor });
  const body = { ...(current.json as Record<string, unknown>), targeting };
  const reply = await env.api.call("PUT", `${path}${dryRun ? "&dryRun=true" : ""}`, {
    token: env.tokens.editor,
    body,
  });
  expect(reply.status, reply.text).toBe(200);
  if (dryRun) return (reply.json as { preview: PreviewEntry[] }).preview;
  const generation = (await flags.get("rollout")).metadata.generation;
  await eventually(
    () => flags.get("rollout"),
    (f) => f.status?.observedGeneration === generation && f.status?.phase === "Delivered",
    "rollout Delivered",
  );
  await operator.idle();
  return [];
}

beforeAll(async () => {
  env = await startClusterApi("op-rollout");
  apps = env.kc.makeApiClient(AppsV1Api);
  ns = await testNamespace(env.kc, "op-rollout");
  const scope = await operatorScope(env.kc, "op-rollout", [ns]);
  await createWorkloads(
    env.kc,
    ns,
    Array.from({ length: COUNT }, (_, i) => ({
      kind: "Deployment" as const,
      name: `shop-${String(i)}`,
      labels: { app: "shop" },
    })),
  );
  flags = flagClient(env.kc, ns);
  await flags.create("rollout", {
    type: "boolean",
    variants: { on: "true", off: "false" },
    defaultVariant: "off",
    defaultValue: "false",
    delivery: { envVar: { selector: { matchLabels: { app: "shop" } } } },
  });
  operator = await startOperator(scope);
  await eventually(
    () => flags.get("rollout"),
    (f) => f.status?.phase === "Delivered",
    "rollout Delivered",
  );
  await operator.idle();
  // The API's caches see the flag and every Deployment.
  await eventually(
    () =>
      env.api.call("GET", `/api/v1/clusters/local/workloads?namespace=${ns}`, { token: env.tokens.viewer }),
    (reply) => Array.isArray(reply.json) && reply.json.length === COUNT,
    "the Deployments in the API",
  );
}, 120_000);

afterAll(async () => {
  await operator.close();
});

const half = {
  fractional: [
    ["on", 50],
    ["off", 50],
  ],
};

describe("a percentage rollout over Deployments", () => {
  it("changes exactly the Deployments the preview listed, to the values it showed", async () => {
    const before = await deployments();
    expect(Object.values(before).map((d) => d.value)).toEqual(Array(COUNT).fill("false"));
    const preview = await putTargeting(half, true);
    expect(preview).toHaveLength(COUNT);
    const turnedOn = preview.filter((e) => e.value === "true").map((e) => e.name);
    // Those that stay off restart nothing; the others roll.
    expect(preview.filter((e) => e.restarts).map((e) => e.name)).toEqual(turnedOn);
    // Each value is flagd's own answer for the Deployment's context.
    const compiled = compileFlag(
      "rollout",
      {
        type: "boolean",
        variants: { on: "true", off: "false" },
        defaultVariant: "off",
        defaultValue: "false",
        targeting: half,
      },
      true,
    );
    const flagd = (name: string) =>
      JSON.stringify(
        evaluateFlag(
          "rollout",
          compiled,
          workloadContext({
            cluster: "local",
            clusterLabels: {},
            namespace: ns,
            kind: "Deployment",
            name,
            labels: { app: "shop" },
          }),
        ).value,
      );
    expect(preview.map((e) => e.value)).toEqual(preview.map((e) => flagd(e.name)));

    await putTargeting(half, false);
    const after = await deployments();
    for (const entry of preview) {
      const [was, now] = [before[entry.name], after[entry.name]];
      expect(now?.value, entry.name).toBe(entry.value);
      // A restart is one more revision, one more ReplicaSet; no restart leaves both.
      expect(now?.generation !== was?.generation, entry.name).toBe(entry.restarts);
      expect(Number(now?.revision) - Number(was?.revision), entry.name).toBe(entry.restarts ? 1 : 0);
      expect(Number(now?.replicaSets) - Number(was?.replicaSets), entry.name).toBe(entry.restarts ? 1 : 0);
    }
  });

  it("restarts nothing for a rewritten rule that gives every Deployment the same value", async () => {
    const before = await deployments();
    // The same split, wrapped in a condition every Deployment of this cluster meets.
    const rewritten = { if: [{ "==": [{ var: "cluster" }, "local"] }, half, "off"] };
    const preview = await putTargeting(rewritten, true);
    expect(preview.filter((e) => e.restarts)).toEqual([]);
    expect(Object.fromEntries(preview.map((e) => [e.name, e.value]))).toEqual(
      Object.fromEntries(Object.entries(before).map(([name, d]) => [name, d.value])),
    );
    await putTargeting(rewritten, false);
    expect(await deployments()).toEqual(before);
  });
});
