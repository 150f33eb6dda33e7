// Operator benchmark (issue 9): a flag change → every matching Deployment patched, for 1, 100
// and 1,000 matching Deployments, as a ratio to a bare client sending the same server-side
// applies with the same concurrency to the same kube-apiserver in the same run (the floor),
// and the writes per change.
//
//   node bench/operator/run.ts [--sizes 1,100,1000] [--concurrency 16]
//
// A fresh local control plane (etcd, kube-apiserver, kube-controller-manager); Deployments with
// 0 replicas so that the controller manager's ReplicaSets cost little and no pod is scheduled.
// The operator runs in this process (runOperator, as `svc operator` does). Prints a Markdown
// table for bench/RESULTS.md.
import { validOrThrow } from "@svc/core/schema/field-errors";
import { parseArgs } from "node:util";
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
} from "@kubernetes/client-node";
import {
  API_GROUP,
  API_GROUP_VERSION,
  CLUSTER_CONNECTION,
  FEATURE_FLAG,
  localClusterConnection,
} from "@svc/core";
import { installCrds, ObjectWriter, waitFor } from "@svc/kube";
import { startLocalControlPlane } from "@svc/localkube";
import { pool } from "../support/pool.ts";
import { parseOperatorConfig, runOperator } from "@svc/operator";
import { pino } from "pino";

const { values: args } = parseArgs({
  options: {
    sizes: { type: "string", default: "1,100,1000" },
    concurrency: { type: "string", default: "16" },
  },
});
const sizes = args.sizes.split(",").map(Number);
const concurrency = Number(args.concurrency);

const controlPlane = await startLocalControlPlane();
try {
  const kc = controlPlane.kubeConfig();
  const apps = kc.makeApiClient(AppsV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  const objects = kc.makeApiClient(CustomObjectsApi);
  await installCrds(kc);
  const namespaces = sizes.map((n) => `bench-${n}`);
  for (const name of ["svc-system", ...namespaces])
    await core.createNamespace({ body: { metadata: { name } } });
  const local = localClusterConnection({
    id: "local",
    apiServer: controlPlane.server,
    systemNamespace: "svc-system",
  });
  await objects.createNamespacedCustomObject({
    group: API_GROUP,
    version: "v1alpha1",
    namespace: "svc-system",
    plural: CLUSTER_CONNECTION.plural,
    body: { ...local, spec: { ...local.spec, namespaces } },
  });
  for (const [i, n] of sizes.entries()) {
    const namespace = namespaces[i] ?? "";
    await pool(
      Array.from({ length: n }, (_, j) => `web-${String(j).padStart(4, "0")}`),
      concurrency,
      (name) =>
        apps.createNamespacedDeployment({
          namespace,
          body: {
            metadata: { name, labels: { app: "bench" } },
            spec: {
              replicas: 0,
              selector: { matchLabels: { app: name } },
              template: {
                metadata: { labels: { app: name } },
                spec: { containers: [{ name: "main", image: "example/web:1" }] },
              },
            },
          },
        }),
    );
  }

  const operator = await runOperator({
    ...validOrThrow(
      parseOperatorConfig({
        SVC_OPERATOR_METRICS_PORT: "0",
        SVC_OPERATOR_METRICS_HOST: "127.0.0.1",
        SVC_OPERATOR_LEADER_ELECTION: "false",
        SVC_OPERATOR_CONCURRENCY: String(concurrency),
      }),
    ),
    kubeConfig: kc,
    log: pino({ level: "warn" }),
  });
  await operator.ready;
  await operator.idle();

  const carrying = async (namespace: string, value: string) =>
    (await apps.listNamespacedDeployment({ namespace })).items.filter(
      (d) => d.spec?.template.spec?.containers[0]?.env?.find((e) => e.name === "FLAG_BENCH")?.value === value,
    ).length;
  const until = (namespace: string, value: string, n: number) =>
    waitFor(
      () => carrying(namespace, value),
      (count) => count === n,
      {
        what: `${n} Deployments with FLAG_BENCH=${value}`,
        timeoutMs: 600_000,
        intervalMs: 50,
      },
    );
  /** The controller manager has caught up with every Deployment (its ReplicaSets made): measurements start from rest. */
  const settled = (namespace: string) =>
    waitFor(
      async () =>
        (await apps.listNamespacedDeployment({ namespace })).items.every(
          (d) => d.status?.observedGeneration === d.metadata?.generation,
        ),
      Boolean,
      { what: `Deployments of ${namespace} observed`, timeoutMs: 600_000, intervalMs: 200 },
    );
  const flagTarget = { group: API_GROUP, version: "v1alpha1", plural: FEATURE_FLAG.plural };

  const rows: string[] = [];
  for (const [i, n] of sizes.entries()) {
    const namespace = namespaces[i] ?? "";
    await objects.createNamespacedCustomObject({
      ...flagTarget,
      namespace,
      body: {
        apiVersion: API_GROUP_VERSION,
        kind: FEATURE_FLAG.kind,
        metadata: { name: "bench" },
        spec: {
          type: "string",
          defaultValue: "v0",
          delivery: { envVar: { selector: { matchLabels: { app: "bench" } } } },
        },
      },
    });
    await until(namespace, "v0", n);
    await operator.idle();
    await settled(namespace);
    // The measured change: a new value, rolled out to every matching Deployment.
    const writesBefore = operator.writes();
    const started = performance.now();
    await objects.patchNamespacedCustomObject(
      { ...flagTarget, namespace, name: "bench", body: { spec: { defaultValue: "v1" } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    await until(namespace, "v1", n);
    const operatorMs = performance.now() - started;
    await operator.idle();
    const writes = operator.writes() - writesBefore;

    // The floor: the same number of applies of one env var, same concurrency, same API server.
    const writer = new ObjectWriter(kc, { timeoutMs: 30_000, fieldManager: "bench-floor" });
    const names = (await apps.listNamespacedDeployment({ namespace })).items.map(
      (d) => d.metadata?.name ?? "",
    );
    const floorStarted = performance.now();
    await pool(names, concurrency, (name) =>
      writer.apply(
        {
          apiVersion: "apps/v1",
          kind: "Deployment",
          metadata: { name, namespace },
          spec: {
            template: { spec: { containers: [{ name: "main", env: [{ name: "FLOOR", value: "1" }] }] } },
          },
        },
        { force: true },
      ),
    );
    const floorMs = performance.now() - floorStarted;
    await writer.close();
    rows.push(
      `| ${n} | ${Math.round(operatorMs)} | ${Math.round(floorMs)} | ${Math.round((100 * floorMs) / operatorMs)} % | ${writes} |`,
    );
  }
  await operator.close();
  console.log(`Flag value change → all matching Deployments patched (concurrency ${concurrency})\n`);
  console.log(
    "| matching Deployments | operator ms | bare-client floor ms | floor / operator | writes per change |",
  );
  console.log(
    "| -------------------- | ----------- | -------------------- | ---------------- | ----------------- |",
  );
  for (const row of rows) console.log(row);
} finally {
  await controlPlane.stop();
}
