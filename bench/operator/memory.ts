// Operator memory (issue 9): the RSS of `svc operator` with 5,000 workloads (Deployments, and
// StatefulSets and DaemonSets in some namespaces) and 1,000 flags in its caches, and the bytes
// per cached object (RSS growth from an empty cluster, divided by the objects cached).
//
//   node bench/operator/memory.ts [--workloads 5000] [--flags 1000] [--snapshot DIR]
//                                 [--node-options "--max-old-space-size=256"] [--untrimmed]
//
// --snapshot writes V8 heap snapshots into DIR (for Chrome DevTools' Memory tab or
// bench/operator/heap-summary.ts): of the empty operator, with the workloads cached, and full.
//
// The real `svc operator` command runs as its own process; its RSS is read from its /metrics
// (process_resident_memory_bytes) after a forced-free settle: once empty, once with every
// object cached and every flag's status written. The flags match no workload, so no
// Deployment rolls and the controller manager stays idle: this measures the caches and the
// per-flag state, not a rollout.
import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, FEATURE_FLAG } from "@svc/core";
import { freeLoopbackPort, installCrds, waitFor } from "@svc/kube";
import { startLocalControlPlane } from "@svc/kube/testing";
import { pool } from "../support/pool.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const { values: args } = parseArgs({
  options: {
    workloads: { type: "string", default: "5000" },
    flags: { type: "string", default: "1000" },
    snapshot: { type: "string" },
    "node-options": { type: "string" },
    // The caches as before trimming (bench/operator/untrimmed-operator.ts): the baseline.
    untrimmed: { type: "boolean", default: false },
  },
});
const workloadCount = Number(args.workloads);
const flagCount = Number(args.flags);
const NAMESPACES = 10;

/**
 * A fleet's mix: every namespace has Deployments; the first three also StatefulSets and
 * DaemonSets (a fifth of their workloads each), so most namespaces lack two of the kinds.
 */
function workloadKind(i: number): "Deployment" | "StatefulSet" | "DaemonSet" {
  if (i % NAMESPACES >= 3) return "Deployment";
  const slot = Math.floor(i / NAMESPACES) % 5;
  return slot === 1 ? "StatefulSet" : slot === 2 ? "DaemonSet" : "Deployment";
}

const controlPlane = await startLocalControlPlane();
let operator: ReturnType<typeof spawn> | undefined;
try {
  const kc = controlPlane.kubeConfig();
  await installCrds(kc);
  const core = kc.makeApiClient(CoreV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  const objects = kc.makeApiClient(CustomObjectsApi);
  await core.createNamespace({ body: { metadata: { name: "svc-system" } } });
  const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `mem-${i}`);
  for (const name of namespaces) await core.createNamespace({ body: { metadata: { name } } });

  const port = await freeLoopbackPort();
  const command = args.untrimmed ? "bench/operator/untrimmed-operator.ts" : "packages/cli/src/main.ts";
  operator = spawn(process.execPath, [join(ROOT, command), "operator"], {
    env: {
      ...process.env,
      KUBECONFIG: controlPlane.kubeconfigPath,
      SVC_OPERATOR_METRICS_PORT: String(port),
      SVC_OPERATOR_METRICS_HOST: "127.0.0.1",
      SVC_OPERATOR_LEADER_ELECTION: "false",
      SVC_LOG_LEVEL: "warn",
      NODE_OPTIONS: [
        args["node-options"] ?? "",
        args.snapshot === undefined ? "" : "--heapsnapshot-signal=SIGUSR2",
      ]
        .join(" ")
        .trim(),
    },
    cwd: args.snapshot ?? ROOT,
    stdio: ["ignore", "inherit", "inherit"],
  });
  /** The sum of a metric's series; NaN while the operator does not answer (starting, busy). */
  const metric = async (name: string): Promise<number> => {
    const response = await fetch(`http://127.0.0.1:${port}/metrics`, {
      signal: AbortSignal.timeout(10_000),
    }).catch(() => undefined);
    if (response === undefined) return NaN;
    const text = await response.text();
    const total = text
      .split("\n")
      .filter((line) => line.startsWith(name))
      .reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0);
    return total;
  };
  const settledRss = async (what: string, cached: number) => {
    await waitFor(
      () => metric("svc_operator_cached_objects").catch(() => -1),
      (n) => n >= cached,
      {
        what,
        timeoutMs: 600_000,
        intervalMs: 500,
      },
    );
    await waitFor(
      () => metric("svc_operator_queue_depth"),
      (n) => n === 0,
      { what, timeoutMs: 600_000 },
    );
    // Let the collector settle: three readings a second apart, the lowest counts; a reading the
    // busy operator did not answer in time is taken again (at most 60 tries).
    const readings: number[] = [];
    for (let tries = 0; readings.length < 3 && tries < 60; tries++) {
      await new Promise((r) => setTimeout(r, 1000));
      const rss = await metric("svc_operator_process_resident_memory_bytes");
      if (Number.isFinite(rss) && rss > 0) readings.push(rss);
    }
    return Math.min(...readings);
  };
  /** Writes a heap snapshot (after the collection a snapshot forces) into --snapshot's DIR. */
  const snapshot = async (what: string) => {
    if (args.snapshot === undefined || operator === undefined) return;
    operator.kill("SIGUSR2");
    // Writing the snapshot stops the process for a while; it is done when /metrics answers again.
    await new Promise((r) => setTimeout(r, 2000));
    await waitFor(() => metric("svc_operator_leader"), Number.isFinite, {
      what: "the snapshot",
      timeoutMs: 300_000,
    });
    console.log(`heap snapshot of ${what} written to ${args.snapshot}`);
  };
  const baseNamespaces = NAMESPACES + 5; // ours, svc-system and the cluster's own
  const emptyRss = await settledRss("the empty cluster cached", baseNamespaces);
  // The empty operator's live heap, the baseline of the live heap per cached object.
  await snapshot("the empty operator");

  await pool(
    Array.from({ length: workloadCount }, (_, i) => i),
    16,
    async (i) => {
      const name = `web-${String(i).padStart(5, "0")}`;
      const namespace = namespaces[i % NAMESPACES] ?? "";
      const template = {
        metadata: { labels: { app: name } },
        spec: {
          containers: [{ name: "main", image: "example/web:1", env: [{ name: "MODE", value: "fast" }] }],
        },
      };
      const metadata = { name, labels: { app: name, team: `t${i % 50}` } };
      const selector = { matchLabels: { app: name } };
      const kind = workloadKind(i);
      if (kind === "StatefulSet")
        await apps.createNamespacedStatefulSet({
          namespace,
          body: { metadata, spec: { replicas: 0, serviceName: name, selector, template } },
        });
      else if (kind === "DaemonSet")
        await apps.createNamespacedDaemonSet({ namespace, body: { metadata, spec: { selector, template } } });
      else
        await apps.createNamespacedDeployment({
          namespace,
          body: { metadata, spec: { replicas: 0, selector, template } },
        });
    },
  );
  // The live heap with the workloads cached and no flag yet: the heap per cached workload.
  if (args.snapshot !== undefined) {
    await settledRss("the workloads cached", baseNamespaces + workloadCount);
    await snapshot("the operator with the workloads cached");
  }
  await pool(
    Array.from({ length: flagCount }, (_, i) => i),
    16,
    (i) =>
      objects.createNamespacedCustomObject({
        group: API_GROUP,
        version: "v1alpha1",
        namespace: namespaces[i % NAMESPACES] ?? "",
        plural: FEATURE_FLAG.plural,
        body: {
          apiVersion: API_GROUP_VERSION,
          kind: FEATURE_FLAG.kind,
          metadata: { name: `flag-${String(i).padStart(4, "0")}` },
          spec: {
            type: "string",
            defaultValue: `value-${i}`,
            description: "memory benchmark flag",
            delivery: { envVar: { selector: { matchLabels: { team: "nobody" } } } },
          },
        },
      }),
  );
  const cached = workloadCount + flagCount + baseNamespaces;
  const fullRss = await settledRss("every object cached and reconciled", cached);
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
  // Where the RSS is: V8's heap (committed and in use), and memory outside it.
  const answered = (name: string) =>
    waitFor(() => metric(name), Number.isFinite, { what: name, timeoutMs: 60_000, intervalMs: 1000 });
  const heapTotal = await answered("svc_operator_nodejs_heap_size_total_bytes");
  const heapUsed = await answered("svc_operator_nodejs_heap_size_used_bytes");
  const external = await answered("svc_operator_nodejs_external_memory_bytes");
  console.log(
    `V8 heap ${mb(heapTotal)} MB committed, ${mb(heapUsed)} MB used; external ${mb(external)} MB (RSS ${mb(fullRss)} MB)`,
  );
  // How often a flag's status found its namespace's plans unchanged instead of planning again.
  const planCache = async (result: string) => metric(`svc_operator_plan_cache_total{result="${result}"}`);
  console.log(`namespace plans: ${await planCache("hit")} reused, ${await planCache("miss")} planned`);
  await snapshot("the full operator");
  console.log("| workloads | flags | RSS empty MB | RSS full MB | bytes per cached object |");
  console.log("| --------- | ----- | ------------ | ----------- | ----------------------- |");
  console.log(
    `| ${workloadCount} | ${flagCount} | ${mb(emptyRss)} | ${mb(fullRss)} | ${Math.round((fullRss - emptyRss) / (workloadCount + flagCount))} |`,
  );
} finally {
  operator?.kill("SIGTERM");
  await controlPlane.stop();
}
