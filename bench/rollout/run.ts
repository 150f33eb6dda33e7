// FlagRollout benchmark (issue 23): the time from a wave's gate passing to the next wave's first
// write, seen as a watcher of the next cluster sees it, beside its floor: the same watcher's
// latency for a bare write to that kube-apiserver, measured in the same run.
//
//   node bench/rollout/run.ts [--samples 20]
//
// Two fresh local control planes: the hub (wave 0, cluster "local") and "east" (wave 1). The
// operator runs in this process (runOperator, as `svc operator` does), so the plan's times
// (status.waves[0].finishedAt, written by the operator's clock) and the watcher's share a clock.
// The flags target no workload (NoTargets: delivered at once, nothing to roll), so the gate
// passes as soon as wave 0's change is delivered: what is measured is the operator's own path
// (status recorded, next cluster read, flag patched) plus the watch's delivery. Prints a
// Markdown table for bench/RESULTS.md.
import { validOrThrow } from "@svc/core/schema/field-errors";
import { parseArgs } from "node:util";
import { CoreV1Api, CustomObjectsApi, Watch, type KubeConfig } from "@kubernetes/client-node";
import {
  API_GROUP,
  API_GROUP_VERSION,
  CLUSTER_CONNECTION,
  FEATURE_FLAG,
  FLAG_ROLLOUT,
  localClusterConnection,
  type FlagRolloutResource,
} from "@svc/core";
import { installCrds, waitFor } from "@svc/kube";
import { registerControlPlane, startLocalControlPlane } from "@svc/localkube";
import { parseOperatorConfig, runOperator } from "@svc/operator";
import { pino } from "pino";

const { values: args } = parseArgs({ options: { samples: { type: "string", default: "20" } } });
const samples = Number(args.samples);
const NS = "bench";
const SYSTEM = "svc-system";
const group = { group: API_GROUP, version: "v1alpha1" };

/** Receipt times of watch events in a namespace, by object name, per resource path. */
function watchTimes(kc: KubeConfig, path: string): { seen: Map<string, number>; stop: () => void } {
  const seen = new Map<string, number>();
  const controller = new Watch(kc).watch(
    path,
    {},
    (type: string, object: { metadata?: { name?: string } }) => {
      const name = object.metadata?.name ?? "";
      if (type === "MODIFIED" && !seen.has(name)) seen.set(name, Date.now());
    },
    () => undefined,
  );
  return {
    seen,
    stop: () => {
      void controller.then((c) => {
        c.abort();
      });
    },
  };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

const [hub, east] = await Promise.all([startLocalControlPlane(), startLocalControlPlane()]);
try {
  const hubKc = hub.kubeConfig();
  const eastKc = east.kubeConfig();
  await Promise.all([installCrds(hubKc), installCrds(eastKc)]);
  for (const kc of [hubKc, eastKc])
    await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NS } } });
  const hubCore = hubKc.makeApiClient(CoreV1Api);
  await hubCore.createNamespace({ body: { metadata: { name: SYSTEM } } });
  const hubObjects = hubKc.makeApiClient(CustomObjectsApi);
  const local = localClusterConnection({ id: "local", apiServer: hub.server, systemNamespace: SYSTEM });
  await hubObjects.createNamespacedCustomObject({
    ...group,
    namespace: SYSTEM,
    plural: CLUSTER_CONNECTION.plural,
    body: { ...local, spec: { ...local.spec, namespaces: [NS] } },
  });
  await registerControlPlane(hubKc, east, { id: "east", systemNamespace: SYSTEM, namespaces: [NS] });
  const flag = (name: string) => ({
    apiVersion: API_GROUP_VERSION,
    kind: FEATURE_FLAG.kind,
    metadata: { name },
    spec: {
      type: "string",
      defaultValue: "old",
      delivery: { envVar: { selector: { matchLabels: { app: name } } } },
    },
  });
  const names = Array.from({ length: samples }, (_, i) => `flag-${i}`);
  for (const kc of [hubKc, eastKc])
    for (const name of names)
      await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
        ...group,
        namespace: NS,
        plural: FEATURE_FLAG.plural,
        body: flag(name),
      });

  const operator = await runOperator({
    ...validOrThrow(
      parseOperatorConfig({
        SVC_OPERATOR_METRICS_PORT: "0",
        SVC_OPERATOR_METRICS_HOST: "127.0.0.1",
        SVC_OPERATOR_LEADER_ELECTION: "false",
      }),
    ),
    systemNamespace: SYSTEM,
    kubeConfig: hubKc,
    log: pino({ level: "warn" }),
  });
  await operator.ready;
  await operator.idle();

  const flagsSeen = watchTimes(eastKc, `/apis/${API_GROUP_VERSION}/namespaces/${NS}/${FEATURE_FLAG.plural}`);
  const configMapsSeen = watchTimes(eastKc, `/api/v1/namespaces/${NS}/configmaps`);
  const eastCore = eastKc.makeApiClient(CoreV1Api);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const gateToWrite: number[] = [];
  const floor: number[] = [];
  for (const name of names) {
    // The floor: a bare write to east's kube-apiserver, as the same watcher sees it.
    await eastCore.createNamespacedConfigMap({
      namespace: NS,
      body: { metadata: { name }, data: { v: "0" } },
    });
    const written = Date.now();
    await eastCore.replaceNamespacedConfigMap({
      namespace: NS,
      name,
      body: { metadata: { name }, data: { v: "1" } },
    });
    await waitFor(
      () => Promise.resolve(configMapsSeen.seen.get(name)),
      (t) => t !== undefined,
      { what: `ConfigMap ${name} seen`, timeoutMs: 10_000, intervalMs: 5 },
    );
    floor.push((configMapsSeen.seen.get(name) ?? NaN) - written);

    await hubObjects.createNamespacedCustomObject({
      ...group,
      namespace: SYSTEM,
      plural: FLAG_ROLLOUT.plural,
      body: {
        apiVersion: API_GROUP_VERSION,
        kind: FLAG_ROLLOUT.kind,
        metadata: { name },
        spec: {
          flag: { namespace: NS, name },
          change: { defaultValue: "new" },
          waves: [
            { clusters: ["local"], bakeSeconds: 0 },
            { clusters: ["east"], bakeSeconds: 0 },
          ],
        },
      },
    });
    const plan = await waitFor(
      async () =>
        (await hubObjects.getNamespacedCustomObject({
          ...group,
          namespace: SYSTEM,
          plural: FLAG_ROLLOUT.plural,
          name,
        })) as FlagRolloutResource,
      (p) =>
        p.status?.phase === "Succeeded" || p.status?.phase === "RolledBack" || p.status?.phase === "Failed",
      { what: `plan ${name} finished`, timeoutMs: 60_000, intervalMs: 20 },
    );
    if (plan.status?.phase !== "Succeeded") throw new Error(`plan ${name}: ${plan.status?.message ?? ""}`);
    const gatePassed = Date.parse(plan.status.waves?.[0]?.finishedAt ?? "");
    gateToWrite.push((flagsSeen.seen.get(name) ?? NaN) - gatePassed);
  }
  flagsSeen.stop();
  configMapsSeen.stop();
  await operator.close();

  const row = (what: string, values: number[]) =>
    `| ${what} | ${percentile(values, 50).toFixed(1)} | ${percentile(values, 95).toFixed(1)} | ${Math.max(...values).toFixed(1)} |`;
  console.log(`\n${samples} plans, two waves of one cluster each, bake 0 s; times in ms\n`);
  console.log("| | p50 | p95 | max |\n|---|---|---|---|");
  console.log(row("wave 0's gate passing → wave 1's flag write seen by a watcher of east", gateToWrite));
  console.log(row("floor: a bare write → the same watcher sees it", floor));
  console.log(`\nratio p50: ${(percentile(gateToWrite, 50) / percentile(floor, 50)).toFixed(1)}x the floor`);
} finally {
  await Promise.all([hub.stop(), east.stop()]);
}
