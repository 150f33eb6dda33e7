// FlagRollout detection time on the local node (issue 23): a plan whose value makes the demo app
// exit at start (FLAG_CRASH_ON_START=true, envVar: the Deployment rolls a crashing pod); from
// the first sight of the crash (a watcher of the pods sees a restart or CrashLoopBackOff) to the
// halt (a watcher of the plan sees it RollingBack). The floor, in the same run: the same kind of
// watcher's latency for a bare write to the same kube-apiserver.
//
//   node bench/node/rollout-detection.ts [--samples 3]
//
// Needs what a local node needs (root, make node-deps, make images). The operator runs in this
// process (runOperator, as `svc operator` does). Prints a Markdown table for bench/RESULTS.md.
import { validOrThrow } from "@svc/core/schema/field-errors";
import { parseArgs } from "node:util";
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  Watch,
  type KubeConfig,
  type V1Pod,
} from "@kubernetes/client-node";
import {
  API_GROUP,
  API_GROUP_VERSION,
  API_VERSION,
  FEATURE_FLAG,
  FLAG_ROLLOUT,
  localClusterConnection,
  observePod,
  SYSTEM_NAMESPACE,
  type FlagRolloutResource,
} from "@svc/core";
import { ensureNamespace, installCrds, isReady, waitFor } from "@svc/kube";
import { localImageArchives, POD_NETWORK, startLocalControlPlane, startLocalNode } from "@svc/localkube";
import { exitUnlessLocalNode } from "../support/local-node.ts";
import { parseOperatorConfig, runOperator } from "@svc/operator";
import { DEMO_APP_PORT, DEMO_IMAGE } from "../../packages/cli/src/dev/demo.ts";

const { values: args } = parseArgs({ options: { samples: { type: "string", default: "3" } } });
const samples = Number(args.samples);
const NS = "bench";

exitUnlessLocalNode();

/** The first receipt time of a watch event for which `seen` holds, by key (bounded: the run's own objects). */
function firstSeen(kc: KubeConfig, path: string, seen: (object: unknown) => string | undefined) {
  const times = new Map<string, number>();
  const watching = new Watch(kc).watch(
    path,
    {},
    (_type: string, object: unknown) => {
      const key = seen(object);
      if (key !== undefined && !times.has(key)) times.set(key, Date.now());
    },
    () => undefined,
  );
  return {
    times,
    stop: () => {
      void watching.then((request) => {
        request.abort();
      });
    },
  };
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ??
  NaN;

const controlPlane = await startLocalControlPlane({ podNetworkAddress: POD_NETWORK.gateway });
const node = await startLocalNode(controlPlane, { imageArchives: localImageArchives() });
const kc = controlPlane.kubeConfig();
try {
  await installCrds(kc);
  await ensureNamespace(kc, SYSTEM_NAMESPACE);
  await ensureNamespace(kc, NS);
  const objects = kc.makeApiClient(CustomObjectsApi);
  const core = kc.makeApiClient(CoreV1Api);
  const local = localClusterConnection({
    id: "local",
    apiServer: controlPlane.server,
    systemNamespace: SYSTEM_NAMESPACE,
  });
  await objects.createNamespacedCustomObject({
    group: API_GROUP,
    version: API_VERSION,
    namespace: SYSTEM_NAMESPACE,
    plural: "clusterconnections",
    body: { ...local, spec: { ...local.spec, namespaces: [NS] } },
  });
  const operator = await runOperator(
    validOrThrow(
      parseOperatorConfig({
        KUBECONFIG: controlPlane.kubeconfigPath,
        SVC_OPERATOR_METRICS_PORT: "0",
        SVC_LOG_LEVEL: "warn",
      }),
    ),
  );
  await operator.ready;

  // A crash: a pod of the app that restarted or waits in CrashLoopBackOff, keyed by its app.
  const crashes = firstSeen(kc, `/api/v1/namespaces/${NS}/pods`, (object) => {
    const pod = object as V1Pod;
    const seen = observePod(pod);
    return seen !== undefined && (seen.restarts > 0 || seen.waitingReason === "CrashLoopBackOff")
      ? pod.metadata?.labels?.["app"]
      : undefined;
  });
  const halts = firstSeen(
    kc,
    `/apis/${API_GROUP_VERSION}/namespaces/${SYSTEM_NAMESPACE}/${FLAG_ROLLOUT.plural}`,
    (object) => {
      const plan = object as FlagRolloutResource;
      const halted = plan.status?.phase === "RollingBack" || plan.status?.phase === "RolledBack";
      return halted ? plan.metadata.name : undefined;
    },
  );
  const writes = firstSeen(kc, `/api/v1/namespaces/${NS}/configmaps`, (object) => {
    const configMap = object as { metadata?: { name?: string }; data?: Record<string, string> };
    return configMap.data?.["v"] === "1" ? configMap.metadata?.name : undefined;
  });
  const detection: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < samples; i++) {
    const app = `app-${i}`;
    await objects.createNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace: NS,
      plural: FEATURE_FLAG.plural,
      body: {
        apiVersion: API_GROUP_VERSION,
        kind: FEATURE_FLAG.kind,
        metadata: { name: app },
        spec: {
          type: "boolean",
          defaultValue: "false",
          delivery: { envVar: { name: "FLAG_CRASH_ON_START", selector: { matchLabels: { app } } } },
        },
      },
    });
    await kc.makeApiClient(AppsV1Api).createNamespacedDeployment({
      namespace: NS,
      body: {
        metadata: { name: app },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app } },
          template: {
            metadata: { labels: { app } },
            spec: {
              terminationGracePeriodSeconds: 1,
              containers: [
                {
                  name: "app",
                  image: DEMO_IMAGE,
                  readinessProbe: { httpGet: { path: "/healthz", port: DEMO_APP_PORT }, periodSeconds: 1 },
                },
              ],
            },
          },
        },
      },
    });
    await waitFor(
      async () => (await core.listNamespacedPod({ namespace: NS, labelSelector: `app=${app}` })).items,
      (pods) =>
        pods.length === 1 &&
        pods.every(
          (p) => isReady(p) && p.spec?.containers[0]?.env?.some((e) => e.name === "FLAG_CRASH_ON_START"),
        ),
      { what: `pod of ${app} ready with the flag`, timeoutMs: 180_000, intervalMs: 500 },
    );
    await objects.createNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace: SYSTEM_NAMESPACE,
      plural: FLAG_ROLLOUT.plural,
      body: {
        apiVersion: API_GROUP_VERSION,
        kind: FLAG_ROLLOUT.kind,
        metadata: { name: app },
        spec: {
          flag: { namespace: NS, name: app },
          change: { defaultValue: "true" },
          waves: [{ clusters: ["local"], bakeSeconds: 300 }],
        },
      },
    });
    await waitFor(
      () => Promise.resolve(halts.times.get(app)),
      (t) => t !== undefined,
      { what: `plan ${app} halted`, timeoutMs: 180_000, intervalMs: 20 },
    );
    const crashed = crashes.times.get(app);
    if (crashed === undefined) throw new Error(`plan ${app} halted before any crash was seen`);
    detection.push((halts.times.get(app) ?? NaN) - crashed);

    await core.createNamespacedConfigMap({
      namespace: NS,
      body: { metadata: { name: app }, data: { v: "0" } },
    });
    const written = Date.now();
    await core.replaceNamespacedConfigMap({
      namespace: NS,
      name: app,
      body: { metadata: { name: app }, data: { v: "1" } },
    });
    await waitFor(
      () => Promise.resolve(writes.times.get(app)),
      (t) => t !== undefined,
      { what: `ConfigMap ${app} seen`, timeoutMs: 10_000, intervalMs: 5 },
    );
    floor.push((writes.times.get(app) ?? NaN) - written);
  }
  for (const watch of [crashes, halts, writes]) watch.stop();
  await operator.close();
  const row = (what: string, values: number[]) =>
    `| ${what} | ${percentile(values, 50).toFixed(0)} | ${Math.max(...values).toFixed(0)} |`;
  console.log(`\n${samples} plans, one crashing Deployment each; times in ms\n`);
  console.log("| | p50 | max |\n|---|---:|---:|");
  console.log(row("first crash seen by a pod watcher → halt seen by a plan watcher", detection));
  console.log(row("floor: a bare write → a watcher sees it", floor));
  console.log(`\n${JSON.stringify({ detection, floor })}`);
} finally {
  await node.stop();
  await controlPlane.stop();
}
