// Fleet benchmark (issue 22): real control planes with simulated nodes (kwok), thousands of
// workloads per cluster, the clusters registered with svc, and `svc operator` delivering to all
// of them. Measures, each figure beside its floor from the same run:
//  (a) one envVar flag change (the same flag, changed in every cluster at once) → every matching
//      workload in every cluster updated, against the same number of server-side applies of one
//      env var sent by a bare client straight to the same kube-apiservers, same concurrency. The
//      clusters' kube-controller-managers are stopped during both (their rollouts follow): on a
//      fleet each cluster's controllers run on its own machines, here five clusters' rollouts of
//      10,000 Deployments share two cores with both, and how much of them overlapped a window
//      decided the ratio (46 % and 158 % in two runs). Measured --rounds times, svc and the
//      floor in turn (svc first in odd rounds, the floor first in even ones), each ratio from
//      two adjacent windows; the CPU each window used is printed beside;
//  (b) the operator's RSS and live heap (V8 heap snapshot) with every cluster cached, against the
//      same operator with the same clusters registered and empty;
//  (c) `svc api`'s first page and whole flag list at `--flags` flags against 100 flags;
//  (d) 1, 2 and 3 sharded replicas: each one's clusters, RSS and live heap; and the delivery
//      stall when one is killed, against the same change reaching the others' clusters
//      (bench/fleet/replicas.ts).
//
//   make bench-fleet FLEET_ARGS="[--clusters 5] [--workloads 10000] [--flags 100000]
//     [--flag-budget 1200] [--nodes 10] [--namespaces 4] [--concurrency 16] [--replicas 1,2,3]
//     [--lease 15] [--rounds 2]"
//
// --workloads counts all clusters together. Everything started (control planes, kwok, svc) is
// stopped and its folders removed on return, on an error and on Ctrl-C.
import { existsSync, readFileSync } from "node:fs";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, FEATURE_FLAG } from "@svc/core";
import { installCrds, waitFor } from "@svc/kube";
import { removeOnExit } from "@svc/localkube";
import { cpuSeconds } from "../support/process-stats.ts";
import { measureApiLatency } from "./api-latency.ts";
import { printResults, type DeliveryRound } from "./report.ts";
import { FleetOperator } from "./operator-process.ts";
import { measureReplicas } from "./replicas.ts";
import { registerClusters } from "./svc-fleet.ts";
import { KWOK_BIN, startSimulatedCluster, type SimulatedCluster } from "./simulated-cluster.ts";
import {
  availableDeployments,
  bareApplies,
  createWorkloads,
  fleetWorkloads,
  TemplateTracker,
} from "./workloads.ts";

const { values: args } = parseArgs({
  options: {
    clusters: { type: "string", default: "5" },
    workloads: { type: "string", default: "10000" },
    flags: { type: "string", default: "100000" },
    "flag-budget": { type: "string", default: "1200" },
    nodes: { type: "string", default: "10" },
    namespaces: { type: "string", default: "4" },
    concurrency: { type: "string", default: "16" },
    replicas: { type: "string", default: "1,2,3" },
    lease: { type: "string", default: "15" },
    rounds: { type: "string", default: "2" },
  },
});
const clusterCount = Number(args.clusters);
const perCluster = Math.ceil(Number(args.workloads) / clusterCount);
const replicaCounts = args.replicas.split(",").map(Number);
// Checked before anything starts: with one replica the killed one's clusters have nobody to go
// to, and the takeover would wait out its 10-minute bound at the end of the run.
if (!replicaCounts.every((n) => Number.isInteger(n) && n >= 1) || Math.max(...replicaCounts) < 2)
  throw new Error(
    `--replicas ${args.replicas}: whole numbers of replicas, at least one of them 2 or more (the takeover kills one replica and times the others taking its clusters)`,
  );
const concurrency = Number(args.concurrency);
const namespaces = Array.from({ length: Number(args.namespaces) }, (_, i) => `fleet-${i}`);
const FLAGS_NAMESPACE = "api-flags";
const flagTarget = { group: API_GROUP, version: "v1alpha1", plural: FEATURE_FLAG.plural };
const log = (line: string) => {
  console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
};
try {
  readFileSync(join(KWOK_BIN, "stages.yaml"));
} catch {
  throw new Error(`no kwok in ${KWOK_BIN}: run \`make kwok\` first`);
}

const clusters: SimulatedCluster[] = [];
const snapshotDir = await mkdtemp(join(tmpdir(), "svc-bench-fleet-"));
const forgetSnapshots = removeOnExit(snapshotDir);
const trackers: TemplateTracker[] = [];
try {
  for (let i = 0; i < clusterCount; i++) {
    clusters.push(await startSimulatedCluster(Number(args.nodes)));
    log(`cluster ${i} up (${clusters[i]?.controlPlane.server})`);
  }
  const [hub] = clusters;
  if (hub === undefined) throw new Error("--clusters must be at least 1");
  const hubKc = hub.controlPlane.kubeConfig();
  const ids = clusters.map((_, i) => (i === 0 ? "local" : `fleet-${i}`));
  for (const [i, cluster] of clusters.entries()) {
    const kc = cluster.controlPlane.kubeConfig();
    await installCrds(kc);
    const core = kc.makeApiClient(CoreV1Api);
    for (const name of [...namespaces, ...(i === 0 ? ["svc-system", FLAGS_NAMESPACE] : [])])
      await core.createNamespace({ body: { metadata: { name } } });
  }
  await registerClusters(hubKc, clusters, ids, [...namespaces, FLAGS_NAMESPACE]);

  // The operator as users run it, one replica (leader election off), its own process; started
  // again between (a)'s rounds, where the floor writes without it.
  const startOperator = async (what: string) => {
    const started = await FleetOperator.start({
      name: "svc operator",
      kubeconfigPath: hub.controlPlane.kubeconfigPath,
      snapshotDir,
      concurrency,
      settings: { SVC_OPERATOR_LEADER_ELECTION: "false" },
    });
    await waitFor(
      () => started.metric("svc_operator_cluster_phase", 'phase="Connected"'),
      (n) => n === clusterCount,
      {
        what: `${clusterCount} clusters Connected`,
        timeoutMs: 600_000,
        intervalMs: 1000,
      },
    );
    await started.idle(what);
    return started;
  };
  let operator: FleetOperator | undefined = await startOperator("the empty clusters");
  const baseline = await operator.memory("the operator with empty clusters");
  log(`operator up: ${baseline.rssMb.toFixed(0)} MB RSS, ${baseline.liveHeapMb.toFixed(1)} MB live heap`);

  /**
   * CPU seconds each cluster's control plane and kwok have used so far (a stopped component,
   * kube-controller-manager while (a) holds the rollouts, counts nothing).
   */
  const busy = () =>
    clusters.map((c) =>
      [...c.controlPlane.pids, c.kwokPid ?? -1]
        .filter((pid) => pid > 0 && existsSync(`/proc/${pid}`))
        .reduce((sum, pid) => sum + cpuSeconds(pid), 0),
    );
  /** The CPU (cores) each cluster's control plane and kwok use over 5 s. */
  const controlPlaneCores = async () => {
    const before = busy();
    await new Promise((r) => setTimeout(r, 5000));
    return busy().map((seconds, i) => (seconds - (before[i] ?? 0)) / 5);
  };
  const idleCores = await controlPlaneCores();
  const sum = (cores: number[]) => cores.reduce((a, b) => a + b, 0).toFixed(2);
  log(`control planes at rest, no workload: ${sum(idleCores)} cores`);

  const workloads = fleetWorkloads(perCluster, namespaces);
  const started = performance.now();
  await Promise.all(
    clusters.map((c) => createWorkloads(c.controlPlane.kubeConfig(), workloads, c.nodes, concurrency)),
  );
  log(
    `${perCluster * clusterCount} workloads created in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  for (const c of clusters)
    trackers.push(await TemplateTracker.start(c.controlPlane.kubeConfig(), "FLAG_FLEET"));
  const total = perCluster * clusterCount;
  await waitFor(
    () => trackers.reduce((n, t) => n + t.size, 0),
    (n) => n === total,
    {
      what: "every workload watched",
      timeoutMs: 600_000,
    },
  );

  /** Until the clusters' own controllers (and kwok) have finished rolling: a run starts from rest. */
  const quiet = async (what: string) => {
    await waitFor(() => trackers.every((t) => t.settled()), Boolean, {
      what,
      timeoutMs: 1_800_000,
      intervalMs: 500,
    });
    await waitFor(
      controlPlaneCores,
      // Each cluster on its own, under a third of a core over its use with no workload: 0.2 at
      // rest with 2,000 workloads, 1.4 while its controllers roll them. A bound on the sum passed
      // while the last cluster still rolled (the others at rest), or never on a fleet whose rest
      // is above it.
      (cores) => cores.every((c, i) => c < (idleCores[i] ?? 0) + 0.3),
      { what: `${what}: control planes quiet`, timeoutMs: 1_800_000, intervalMs: 0 },
    );
    log(`${what}: control planes quiet`);
  };
  /** CPU seconds used so far by all control planes and by this process. */
  const cpuNow = () => {
    const { user, system } = process.cpuUsage();
    return { controlPlanes: busy().reduce((a, b) => a + b, 0), bench: (user + system) / 1e6 };
  };
  const cpuSince = (before: ReturnType<typeof cpuNow>) => {
    const now = cpuNow();
    return { controlPlanes: now.controlPlanes - before.controlPlanes, bench: now.bench - before.bench };
  };
  /** The clusters' rollouts held back while a window writes (see the header), released after it. */
  const holdRollouts = () => Promise.all(clusters.map((c) => c.controlPlane.kill("kube-controller-manager")));
  const releaseRollouts = () =>
    Promise.all(clusters.map((c) => c.controlPlane.start("kube-controller-manager")));
  const flagWrite = (value: string) =>
    Promise.all(
      clusters.flatMap((c) =>
        namespaces.map((namespace) => {
          const objects = c.controlPlane.kubeConfig().makeApiClient(CustomObjectsApi);
          return value === "v0"
            ? objects.createNamespacedCustomObject({
                ...flagTarget,
                namespace,
                body: {
                  apiVersion: API_GROUP_VERSION,
                  kind: FEATURE_FLAG.kind,
                  metadata: { name: "fleet" },
                  spec: {
                    type: "string",
                    defaultValue: value,
                    delivery: { envVar: { selector: { matchLabels: { fleet: "bench" } } } },
                  },
                },
              })
            : objects.patchNamespacedCustomObject(
                { ...flagTarget, namespace, name: "fleet", body: { spec: { defaultValue: value } } },
                setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
              );
        }),
      ),
    );
  const delivered = (value: string) =>
    waitFor(
      () => trackers.reduce((n, t) => n + t.carrying(value), 0),
      (n) => n === total,
      {
        what: `${total} workloads with FLAG_FLEET=${value}`,
        timeoutMs: 3_600_000,
        intervalMs: 20,
      },
    );

  await quiet("the workloads rolled out");
  log("workloads rolled out; delivering v0");
  await flagWrite("v0");
  await delivered("v0");
  await operator.idle("v0 delivered");
  await quiet("v0 rolled out");
  const available = await availableDeployments(clusters);
  const full = await operator.memory("the operator with every cluster cached");
  log(`cached: ${full.rssMb.toFixed(0)} MB RSS, ${full.liveHeapMb.toFixed(1)} MB live heap`);

  // (a) The measured change and its floor, in rounds (see the header), rollouts held throughout.
  await holdRollouts();
  const operatorWindow = async (running: FleetOperator, value: string) => {
    const writesBefore = await running.metric("svc_operator_writes_total");
    const appliesBefore = await running.metric("svc_operator_workload_deliveries_total");
    const operatorCpuBefore = cpuSeconds(running.pid);
    const cpuBefore = cpuNow();
    const changeStarted = performance.now();
    await flagWrite(value);
    // The operator's own account beside the watched one: when it had applied one write per
    // workload. A figure far above it means the bench's watches lagged, not the operator.
    const applied = waitFor(
      () => running.metric("svc_operator_workload_deliveries_total"),
      (n) => n - appliesBefore >= total,
      { what: `${total} workload applies`, timeoutMs: 3_600_000, intervalMs: 200 },
    ).then(() => performance.now() - changeStarted);
    await delivered(value);
    const ms = performance.now() - changeStarted;
    const cpu = { ...cpuSince(cpuBefore), operator: cpuSeconds(running.pid) - operatorCpuBefore };
    const appliedMs = await applied;
    await running.idle(`${value} delivered`);
    const writes = (await running.metric("svc_operator_writes_total")) - writesBefore;
    log(
      `operator delivered ${value} in ${(ms / 1000).toFixed(1)} s (its own count: ${(appliedMs / 1000).toFixed(1)} s; ${writes} writes; CPU s ${JSON.stringify(cpu)})`,
    );
    return { ms, cpu, writes };
  };
  const floorWindow = async (value: string) => {
    const cpuBefore = cpuNow();
    const ms = await bareApplies(clusters, workloads, concurrency, value);
    const cpu = cpuSince(cpuBefore);
    log(`bare floor ${value}: ${(ms / 1000).toFixed(1)} s (CPU s ${JSON.stringify(cpu)})`);
    return { ms, cpu };
  };
  const delivery: DeliveryRound[] = [];
  for (let round = 1; round <= Number(args.rounds); round++) {
    const value = `v${round}`;
    const svcFirst = round % 2 === 1;
    if (svcFirst) {
      operator ??= await startOperator("before the round");
      const svc = await operatorWindow(operator, value);
      await operator.stop();
      operator = undefined;
      delivery.push({ round, svcFirst, svc, floor: await floorWindow(value) });
    } else {
      const floor = await floorWindow(value);
      operator = await startOperator("before the round");
      delivery.push({ round, svcFirst, svc: await operatorWindow(operator, value), floor });
    }
  }
  await operator?.stop();
  await releaseRollouts();
  log("(a) measured; replicas now");
  // (a)'s changes, released, roll every workload again: the replicas start on clusters at rest.
  await quiet("(a) rolled out");

  // (d) Replicas sharing the clusters, and a killed one's clusters taken over.
  const replicas = await measureReplicas({
    hub: hubKc,
    hubKubeconfigPath: hub.controlPlane.kubeconfigPath,
    clusters: clusters.map((c, i) => ({ id: ids[i] ?? "", kc: c.controlPlane.kubeConfig() })),
    snapshotDir,
    concurrency,
    counts: replicaCounts,
    leaseSeconds: Number(args.lease),
    namespace: namespaces[0] ?? "",
    app: workloads[0]?.name ?? "",
  });
  // Printed now: a later part that fails must not take these figures with it.
  log(`replicas measured: ${JSON.stringify(replicas)}; the API now`);

  // (c) The API, with the operator stopped (100,000 flags would be its work, not the API's).
  for (const t of trackers) t.stop();
  const api = await measureApiLatency(
    hubKc,
    hub.controlPlane.kubeconfigPath,
    FLAGS_NAMESPACE,
    100,
    Number(args.flags),
    Number(args["flag-budget"]),
  );
  printResults({
    argv: process.argv.slice(2),
    clusterCount,
    concurrency,
    total,
    available,
    delivery,
    baseline,
    full,
    replicas,
    api,
  });
} catch (error) {
  // The replicas' logs say what they did: kept for a failed run, whose folder goes below.
  const kept = join(import.meta.dirname, "../../.cache/bench", `fleet-logs-${new Date().toISOString()}`);
  await cp(snapshotDir, kept, {
    recursive: true,
    filter: (source) => !source.endsWith(".heapsnapshot"),
  }).catch(() => undefined);
  console.error(`the operators' logs of this failed run: ${kept}`);
  throw error;
} finally {
  for (const t of trackers) t.stop();
  for (const c of clusters.reverse()) await c.stop();
  await rm(snapshotDir, { recursive: true, force: true });
  forgetSnapshots();
}
