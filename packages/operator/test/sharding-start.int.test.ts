// Replicas started together (a fresh install with replicas: 3, or a rollout restarting them all):
// each announces itself and waits until it has seen the others before it takes a cluster
// (core's settleReplicas), so no cluster is ever taken, and its caches started, by two replicas.
// Observed from outside, as `kubectl get lease -w` would: a watch on the system namespace's
// Leases from before the replicas start records every holder each cluster's Lease ever had.
import { readFile } from "node:fs/promises";
import { CoordinationV1Api, Watch, type V1Lease } from "@kubernetes/client-node";
import { assignClusters } from "@svc/core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import { registerCluster } from "../../kube/test/support/registry.ts";
import type { RunningOperator } from "../src/index.ts";
import { clusterLeaseName, replicaLeaseName } from "../src/sharding.ts";
import { operatorScope, startOperator, type OperatorScope } from "./support/operator.ts";

const hub = testKubeConfig();
const CLUSTERS = ["local", "east", "west", "north"] as const;
const REPLICAS = ["a", "b", "c"] as const;
let scope: OperatorScope;
const replicas = new Map<string, RunningOperator>();

/** The clusters whose objects the replica caches, from its metrics. */
async function cachedClusters(operator: RunningOperator): Promise<string[]> {
  const text = await (await fetch(`${operator.metricsUrl}/metrics`)).text();
  return [
    ...new Set([...text.matchAll(/svc_operator_cached_objects\{cluster="([^"]+)"/g)].map((m) => m[1] ?? "")),
  ].sort();
}

/** Every holder each cluster's Lease has had from now on, in order (an empty holder, a hand-back, left out). */
async function recordHolders(namespace: string) {
  const history = new Map<string, string[]>(CLUSTERS.map((id) => [id, []]));
  const byLease = new Map<string, string>(CLUSTERS.map((id) => [clusterLeaseName(id), id]));
  const path = `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`;
  // Watched from the list's version: nothing written after it is missed, however late the watch connects.
  const listed = await hub.makeApiClient(CoordinationV1Api).listNamespacedLease({ namespace });
  const request = await new Watch(hub).watch(
    path,
    { resourceVersion: listed.metadata?.resourceVersion },
    (_type: string, lease: V1Lease) => {
      const id = byLease.get(lease.metadata?.name ?? "");
      const holder = lease.spec?.holderIdentity ?? "";
      const holders = id === undefined ? undefined : history.get(id);
      if (holders !== undefined && holder !== "" && holders.at(-1) !== holder) holders.push(holder);
    },
    () => undefined,
  );
  return {
    history,
    stop: () => {
      request.abort();
    },
  };
}

beforeAll(async () => {
  const namespaces = new Map<string, string>();
  for (const id of CLUSTERS) namespaces.set(id, await testNamespace(hub, `op-shstart-${id}`));
  scope = await operatorScope(hub, "op-shstart", [namespaces.get("local") ?? ""]);
  const kubeconfig = await readFile(inject("kubeconfigPath"), "utf8");
  for (const id of CLUSTERS.filter((c) => c !== "local"))
    await registerCluster(
      hub,
      scope.systemNamespace,
      id,
      { apiServer: hub.getCurrentCluster()?.server, namespaces: [namespaces.get(id) ?? ""] },
      { kubeconfig },
    );
}, 120_000);

afterAll(async () => {
  await Promise.all([...replicas.values()].map((operator) => operator.close()));
});

describe("replicas started together", () => {
  it("take each cluster once, each only the clusters the assignment gives it", async () => {
    const { history, stop } = await recordHolders(scope.systemNamespace);
    const startedAt = Date.now();
    try {
      await Promise.all(
        REPLICAS.map(async (identity) => {
          const operator = await startOperator(scope, {
            SVC_OPERATOR_SHARDING: "true",
            SVC_OPERATOR_IDENTITY: identity,
            // A round of 3 s: replicas of this file start well within one of each other, even on a loaded machine.
            SVC_OPERATOR_LEASE_DURATION: "9s",
          });
          replicas.set(identity, operator);
          console.log(`sharding start: ${identity} ready ${Date.now() - startedAt} ms after the start`);
        }),
      );
      const owners = assignClusters([...CLUSTERS], [...REPLICAS]);
      for (const [identity, operator] of replicas) {
        const mine = CLUSTERS.filter((id) => owners.get(id) === identity).sort();
        await eventually(
          () => cachedClusters(operator),
          (cached) => cached.join() === mine.join(),
          `${identity} caches ${mine.join()}`,
        );
      }
      // Every cluster's Lease was only ever held by its owner: no replica took (and cached) a cluster it then handed back.
      expect(Object.fromEntries(history)).toEqual(
        Object.fromEntries(CLUSTERS.map((id) => [id, [owners.get(id)]])),
      );
    } finally {
      stop();
    }
  });

  it("stops at once when closed while it waits for the others, taking nothing", async () => {
    // A fleet of its own: the replicas of the test above would otherwise assign it clusters.
    const alone = await operatorScope(hub, "op-shclose", [await testNamespace(hub, "op-shclose")]);
    const { history, stop } = await recordHolders(alone.systemNamespace);
    try {
      // A 60 s Lease: it would wait at least a 20 s round before taking a cluster.
      const waiting = await startOperator(
        alone,
        { SVC_OPERATOR_SHARDING: "true", SVC_OPERATOR_IDENTITY: "late", SVC_OPERATOR_LEASE_DURATION: "60s" },
        { waitUntilLeading: false },
      );
      const ready = waiting.ready.then(
        () => "ready",
        (error: unknown) => String(error),
      );
      // Announced: its presence Lease is there.
      await eventually(
        () =>
          hub
            .makeApiClient(CoordinationV1Api)
            .readNamespacedLease({ namespace: alone.systemNamespace, name: replicaLeaseName("late") })
            .then(
              () => true,
              () => false,
            ),
        (found) => found,
        "the waiting replica's presence Lease",
      );
      const closing = Date.now();
      await waiting.close();
      expect(Date.now() - closing).toBeLessThan(10_000);
      expect(await ready).toMatch(/closed before it was ready/);
      expect([...history.values()].flat().filter((holder) => holder === "late")).toEqual([]);
    } finally {
      stop();
    }
  });
});
