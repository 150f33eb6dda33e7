// One targeted flag, two real clusters: the operator evaluates the flag's rule for each
// workload with the workload's cluster (its id, and its ClusterConnection's labels), so the
// same definition delivers a different value to the same Deployment in each cluster.
import { AppsV1Api, CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { registerControlPlane, startLocalControlPlane, type LocalControlPlane } from "@svc/localkube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import type { RunningOperator } from "../src/index.ts";
import { createWorkloads, flagClient, operatorScope, startOperator } from "./support/operator.ts";

const hub = testKubeConfig();
let remote: LocalControlPlane;
let remoteKc: KubeConfig;
let ns: string;
let operator: RunningOperator;

const envValue = async (kc: KubeConfig, name: string) =>
  (
    await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ namespace: ns, name: "web" })
  ).spec?.template.spec?.containers[0]?.env?.find((e) => e.name === name)?.value;

const selector = { matchLabels: { app: "web" } };
/** Variant "a" in cluster east, "b" elsewhere. */
const byCluster = {
  type: "string",
  variants: { a: "a", b: "b" },
  defaultVariant: "b",
  defaultValue: "b",
  targeting: { if: [{ "==": [{ var: "cluster" }, "east"] }, "a", "b"] },
  delivery: { envVar: { name: "TARGET_MODE", selector } },
};
/** 100 in clusters labelled region=eu, 1000 elsewhere. */
const byRegion = {
  type: "integer",
  variants: { small: "100", large: "1000" },
  defaultVariant: "large",
  defaultValue: "1000",
  targeting: { if: [{ "==": [{ var: "clusterLabels.region" }, "eu"] }, "small", "large"] },
  delivery: { envVar: { name: "TARGET_BATCH", selector } },
};

beforeAll(async () => {
  [remote, ns] = await Promise.all([startLocalControlPlane(), testNamespace(hub, "op-targeting-clusters")]);
  remoteKc = remote.kubeConfig();
  const scope = await operatorScope(hub, "op-targeting-clusters", [ns]);
  await remoteKc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: ns } } });
  for (const kc of [hub, remoteKc]) {
    await createWorkloads(kc, ns, [{ kind: "Deployment", name: "web", labels: { app: "web" } }]);
  }
  await registerControlPlane(hub, remote, {
    id: "east",
    displayName: "East",
    systemNamespace: scope.systemNamespace,
    namespaces: [ns],
    labels: { region: "eu" },
  });
  operator = await startOperator(scope);
}, 240_000);

afterAll(async () => {
  await operator.close();
  await remote.stop();
});

describe("a targeted flag in two clusters", () => {
  it("delivers each cluster's value by the cluster's id and by its ClusterConnection's labels", async () => {
    // The operator installs the FeatureFlag CRD in east once it is connected.
    await eventually(
      () =>
        flagClient(remoteKc, ns)
          .list()
          .then(
            () => true,
            () => false,
          ),
      (served) => served,
      "the FeatureFlag CRD served in east",
    );
    // The same definitions in both clusters (a cluster's flags live in that cluster).
    for (const kc of [hub, remoteKc]) {
      await flagClient(kc, ns).create("mode", byCluster);
      await flagClient(kc, ns).create("batch", byRegion);
    }
    const values = async (kc: KubeConfig) => [
      await envValue(kc, "TARGET_MODE"),
      await envValue(kc, "TARGET_BATCH"),
    ];
    await eventually(
      () => values(remoteKc),
      (v) => v[0] !== undefined && v[1] !== undefined,
      "both flags in east's web",
      60_000,
    );
    await eventually(
      () => values(hub),
      (v) => v[0] !== undefined && v[1] !== undefined,
      "both flags in the local cluster's web",
    );
    await operator.idle();
    expect(await values(remoteKc)).toEqual(["a", "100"]);
    expect(await values(hub)).toEqual(["b", "1000"]);
  });
});
