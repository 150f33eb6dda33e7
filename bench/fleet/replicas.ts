// Part (d) of the fleet benchmark: operator replicas sharing the clusters (SVC_OPERATOR_SHARDING,
// docs/operator.md "Sharding by cluster"), each a real `svc operator` process.
//  - For 1, 2 and 3 replicas, started fresh: each replica's clusters, RSS and live heap once every
//    cluster is held and its queues are empty.
//  - With the most replicas: one replica is SIGKILLed and, at that moment, a configMap flag is
//    changed in every cluster. The stall is the time until the killed replica's clusters have the
//    new value (another replica must first take their Leases over); the floor is the same change
//    reaching the clusters of the replicas still alive, in the same run. A ConfigMap write
//    restarts nothing, so the figure is the hand-over's, not the clusters' rollout speed.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import {
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, assignClusters, FEATURE_FLAG } from "@svc/core";
import { waitFor } from "@svc/kube";
import { clusterLeaseName } from "../../packages/operator/src/sharding.ts";
import { FleetOperator, type LogLine, type OperatorMemory } from "./operator-process.ts";

export interface ReplicaMemory extends OperatorMemory {
  name: string;
  clusters: string[];
}

export interface ReplicaRun {
  replicas: number;
  /** From the start of the processes until every cluster was held and every queue empty. */
  settledSeconds: number;
  members: ReplicaMemory[];
  /**
   * Over the whole run: clusters whose writes a replica paused because a Lease renewal came past
   * the renew deadline (their caches kept, resumed once renewed)...
   */
  leasePauses: number;
  /** ...and clusters a replica stopped because another had taken the Lease meanwhile (re-listed when taken again). */
  leaseLosses: number;
}

export interface Takeover {
  leaseSeconds: number;
  victim: string;
  victimClusters: string[];
  /** Kill (and change) → the new value in every one of the killed replica's clusters. */
  stallMs: number;
  /** Change → the new value in every cluster of the replicas left alive (the floor). */
  floorMs: number;
  /** Kill → the last of its clusters' Leases taken by a live replica, from their logs. */
  leaseTakenMs: number;
  /** Kill → the last of its clusters connected and its caches filled ("cluster health" ready). */
  readyMs: number;
}

export interface ReplicaResults {
  runs: ReplicaRun[];
  takeover: Takeover;
}

export interface ReplicaBenchOptions {
  hub: KubeConfig;
  hubKubeconfigPath: string;
  /** Each cluster's id and kubeconfig, the hub first. */
  clusters: readonly { id: string; kc: KubeConfig }[];
  snapshotDir: string;
  concurrency: number;
  counts: readonly number[];
  leaseSeconds: number;
  /** Where the takeover flag lives in every cluster, and the one workload it selects. */
  namespace: string;
  app: string;
}

const CONFIGMAP = "fleet-takeover";
/** What a replica logs when a cluster's Lease renewal came late, and when another replica took it (sharding.ts). */
const LEASE_PAUSED = "sharding: the cluster's Lease was not renewed in time; pausing its writes until it is";
const LEASE_LOST = "sharding: another replica took the cluster's Lease; stopping it";
const KEY = "value";
const flagTarget = { group: API_GROUP, version: "v1alpha1", plural: FEATURE_FLAG.plural };

async function startReplicas(options: ReplicaBenchOptions, count: number): Promise<FleetOperator[]> {
  const replicas: FleetOperator[] = [];
  for (let k = 0; k < count; k++) {
    const name = `replica-${count}-${k}`;
    // A folder each, so one replica's heap snapshot is never taken for another's.
    const snapshotDir = join(options.snapshotDir, name);
    await mkdir(snapshotDir, { recursive: true });
    replicas.push(
      await FleetOperator.start({
        name,
        kubeconfigPath: options.hubKubeconfigPath,
        snapshotDir,
        logPath: join(snapshotDir, "operator.log"),
        concurrency: options.concurrency,
        settings: {
          SVC_OPERATOR_SHARDING: "true",
          SVC_OPERATOR_IDENTITY: name,
          SVC_OPERATOR_LEASE_DURATION: `${options.leaseSeconds}s`,
          // The takeover's steps are read from its info lines (Lease taken, cluster ready).
          SVC_LOG_LEVEL: "info",
        },
      }),
    );
  }
  return replicas;
}

/**
 * Until each replica caches exactly the clusters core's assignClusters gives it (what every
 * replica computes from the live replicas: the hand-overs are done) and its queues are empty.
 */
async function settle(replicas: readonly FleetOperator[], clusterIds: readonly string[]): Promise<void> {
  const owners = assignClusters(
    clusterIds,
    replicas.map((r) => r.name),
  );
  const assigned = (name: string) => clusterIds.filter((id) => owners.get(id) === name).sort();
  await waitFor(
    () => Promise.all(replicas.map((r) => r.cachedClusters())),
    (cached) => replicas.every((r, i) => cached[i]?.join() === assigned(r.name).join()),
    {
      what: `${clusterIds.length} clusters shared by ${replicas.length} replicas as assigned`,
      timeoutMs: 600_000,
      intervalMs: 500,
    },
  );
  for (const replica of replicas) await replica.idle("settled");
}

const valueIn = async (kc: KubeConfig, namespace: string): Promise<string | undefined> =>
  (
    await kc
      .makeApiClient(CoreV1Api)
      .readNamespacedConfigMap({ namespace, name: CONFIGMAP })
      .catch(() => undefined)
  )?.data?.[KEY];

/** The takeover flag in every cluster: created with `value`, or changed to it. */
async function writeFlag(options: ReplicaBenchOptions, value: string, create: boolean): Promise<void> {
  const { namespace } = options;
  await Promise.all(
    options.clusters.map(({ kc }) => {
      const objects = kc.makeApiClient(CustomObjectsApi);
      return create
        ? objects.createNamespacedCustomObject({
            ...flagTarget,
            namespace,
            body: {
              apiVersion: API_GROUP_VERSION,
              kind: FEATURE_FLAG.kind,
              metadata: { name: CONFIGMAP },
              spec: {
                type: "string",
                defaultValue: value,
                delivery: {
                  configMap: {
                    configMapName: CONFIGMAP,
                    key: KEY,
                    selector: { matchLabels: { app: options.app } },
                  },
                },
              },
            },
          })
        : objects.patchNamespacedCustomObject(
            { ...flagTarget, namespace, name: CONFIGMAP, body: { spec: { defaultValue: value } } },
            setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
          );
    }),
  );
}

/** Milliseconds from `since` until each cluster's ConfigMap holds `value` (polled every 50 ms). */
async function arrivals(
  options: ReplicaBenchOptions,
  value: string,
  since: number,
): Promise<Map<string, number>> {
  const found = await Promise.all(
    options.clusters.map(async ({ id, kc }) => {
      await waitFor(
        () => valueIn(kc, options.namespace),
        (v) => v === value,
        { what: `${CONFIGMAP}=${value} in ${id}`, timeoutMs: 600_000, intervalMs: 50 },
      );
      return [id, performance.now() - since] as const;
    }),
  );
  return new Map(found);
}

async function holderOf(hub: KubeConfig, id: string): Promise<string | undefined> {
  const lease = await hub
    .makeApiClient(CoordinationV1Api)
    .readNamespacedLease({ namespace: "svc-system", name: clusterLeaseName(id) })
    .catch(() => undefined);
  return lease?.spec?.holderIdentity ?? undefined;
}

async function measureTakeover(options: ReplicaBenchOptions, replicas: FleetOperator[]): Promise<Takeover> {
  await writeFlag(options, "before", true);
  await arrivals(options, "before", performance.now());
  for (const replica of replicas) await replica.idle("takeover flag delivered");
  // The replica with the most clusters, as the Leases name it.
  const holders = new Map(
    await Promise.all(options.clusters.map(async ({ id }) => [id, await holderOf(options.hub, id)] as const)),
  );
  const held = (name: string) => [...holders].filter(([, holder]) => holder === name).map(([id]) => id);
  const victim = [...replicas].sort((a, b) => held(b.name).length - held(a.name).length)[0];
  if (victim === undefined) throw new Error("no replica to kill");
  const victimClusters = held(victim.name);
  const killed = performance.now();
  const killedAt = Date.now();
  await Promise.all([victim.kill(), writeFlag(options, "after", false)]);
  const times = await arrivals(options, "after", killed);
  const over = (ids: string[]) => Math.max(...ids.map((id) => times.get(id) ?? NaN));
  const survivors = options.clusters.map(({ id }) => id).filter((id) => !victimClusters.includes(id));
  const lines = (await Promise.all(replicas.filter((r) => r !== victim).map((r) => r.log()))).flat();
  /** Kill → the first line after it matching `what`, for each of the victim's clusters; the latest. */
  const step = (what: (line: LogLine) => boolean) =>
    Math.max(
      ...victimClusters.map((id) =>
        Math.min(
          ...lines
            .filter((l) => l.cluster === id && l.time >= killedAt && what(l))
            .map((l) => l.time - killedAt),
        ),
      ),
    );
  return {
    leaseSeconds: options.leaseSeconds,
    victim: victim.name,
    victimClusters,
    stallMs: over(victimClusters),
    floorMs: survivors.length === 0 ? NaN : over(survivors),
    leaseTakenMs: step((l) => l.msg === "sharding: this replica holds the cluster"),
    readyMs: step((l) => l.msg === "cluster health" && l.state === "ready"),
  };
}

export async function measureReplicas(options: ReplicaBenchOptions): Promise<ReplicaResults> {
  const runs: ReplicaRun[] = [];
  let takeover: Takeover | undefined;
  const most = Math.max(...options.counts);
  for (const count of options.counts) {
    const started = performance.now();
    const replicas = await startReplicas(options, count);
    try {
      await settle(
        replicas,
        options.clusters.map((c) => c.id),
      );
      const settledSeconds = (performance.now() - started) / 1000;
      // Every replica's clusters and RSS before any snapshot: a snapshot stops its replica long
      // enough to lose Leases, and the others would take (and cache) its clusters meanwhile.
      const resident = [];
      for (const replica of replicas)
        resident.push({ replica, clusters: await replica.cachedClusters(), rssMb: await replica.rss() });
      const members: ReplicaMemory[] = [];
      for (const { replica, clusters, rssMb } of resident)
        members.push({
          name: replica.name,
          clusters,
          rssMb,
          liveHeapMb: await replica.liveHeap(replica.name),
        });
      // Back to the assignment before anything else is measured.
      await settle(
        replicas,
        options.clusters.map((c) => c.id),
      );
      const run: ReplicaRun = { replicas: count, settledSeconds, members, leasePauses: 0, leaseLosses: 0 };
      runs.push(run);
      if (count === most) takeover = await measureTakeover(options, replicas);
      const lines = (await Promise.all(replicas.map((r) => r.log()))).flat();
      run.leasePauses = lines.filter((l) => l.msg === LEASE_PAUSED).length;
      run.leaseLosses = lines.filter((l) => l.msg === LEASE_LOST).length;
    } finally {
      await Promise.all(replicas.map((r) => r.stop()));
    }
  }
  if (takeover === undefined) throw new Error("no replica count to measure the takeover with");
  return { runs, takeover };
}
