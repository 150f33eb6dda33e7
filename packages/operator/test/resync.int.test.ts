// A ClusterConnection's resyncPeriod drives that cluster's rescan: with nothing changing, every
// key is reconciled again from the caches and the status gets a fresh lastSyncTime each period.
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { API_GROUP, CLUSTER_CONNECTION, type ClusterConnectionStatus } from "@svc/core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import type { RunningOperator } from "../src/index.ts";
import {
  createWorkloads,
  flagClient,
  operatorScope,
  startOperator,
  type OperatorScope,
} from "./support/operator.ts";

const kc = testKubeConfig();
const objects = kc.makeApiClient(CustomObjectsApi);
let scope: OperatorScope;
let operator: RunningOperator;

const connection = () => ({
  group: API_GROUP,
  version: "v1alpha1",
  namespace: scope.systemNamespace,
  plural: CLUSTER_CONNECTION.plural,
  name: "local",
});

/** Reconciles of the cluster's keys so far, from the operator's own metrics. */
async function reconciles(): Promise<number> {
  const text = await (await fetch(`${operator.metricsUrl}/metrics`)).text();
  return [...text.matchAll(/^svc_operator_reconciles_total\{cluster="local",[^}]*\} (\d+)$/gm)].reduce(
    (sum, match) => sum + Number(match[1]),
    0,
  );
}

const lastSyncTime = async () =>
  ((await objects.getNamespacedCustomObject(connection())) as { status?: ClusterConnectionStatus }).status
    ?.lastSyncTime;

beforeAll(async () => {
  const ns = await testNamespace(kc, "op-resync");
  scope = await operatorScope(kc, "op-resync", [ns]);
  await objects.patchNamespacedCustomObject(
    { ...connection(), body: { spec: { resyncPeriod: "2s" } } },
    setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
  );
  await createWorkloads(kc, ns, [{ kind: "Deployment", name: "web", labels: { app: "web" } }]);
  await flagClient(kc, ns).create("quiet", {
    type: "boolean",
    defaultValue: "true",
    delivery: { envVar: { selector: { matchLabels: { app: "web" } } } },
  });
  operator = await startOperator(scope);
});

afterAll(async () => {
  await operator.close();
});

it("reconciles every key again and refreshes lastSyncTime each resyncPeriod, with nothing changed", async () => {
  await operator.idle();
  const writesBefore = operator.writes();
  const first = await eventually(lastSyncTime, (t) => t !== undefined, "a first lastSyncTime");
  const before = await reconciles();
  // Two periods of 2 s: the flag and the Deployment (at least) reconciled again, twice.
  await eventually(reconciles, (count) => count >= before + 4, "rescans of the cluster's keys", 20_000);
  const later = await eventually(
    lastSyncTime,
    (t) => t !== undefined && Date.parse(t) > Date.parse(first ?? ""),
    "a later lastSyncTime",
    20_000,
  );
  expect(Date.parse(later ?? "")).toBeGreaterThan(Date.parse(first ?? ""));
  // A rescan of a cluster in step writes nothing but the connection's status.
  await operator.idle();
  expect(operator.writes() - writesBefore).toBeLessThanOrEqual(4);
});
