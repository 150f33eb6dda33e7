// Operator memory (issue 9): the RSS of `svc operator` with 5,000 workloads (Deployments, and
// StatefulSets and DaemonSets in some namespaces) and 1,000 flags in its caches, and the bytes
// per cached object (RSS growth from an empty cluster, divided by the objects cached).
//
//   node bench/operator/memory.ts [--workloads 5000] [--flags 1000] [--snapshot DIR]
//                                 [--node-options "--max-old-space-size=256"] [--untrimmed]
//                                 [--variant "NAME [untrimmed] [VAR=VALUE…] [--node-flag…]"]…
//                                 [--smaps] [--malloc-trim] [--max-rss-mb 4096]
//
// --snapshot writes V8 heap snapshots into DIR (for Chrome DevTools' Memory tab or
// bench/operator/heap-summary.ts): of the empty operator, with the workloads cached, and full.
//
// --variant (repeatable) runs one operator per variant, started together against the same
// control plane, so that variants are compared under the same load: e.g.
// `--variant baseline untrimmed --variant default --variant "arena2 MALLOC_ARENA_MAX=2"
// --variant "semi4 --max-semi-space-size=4"` (a variant's flags go on the operator's node
// command line, where V8 takes flags NODE_OPTIONS refuses). Without it, one operator runs
// (untrimmed with --untrimmed). --smaps reports, at the full point, where each operator's RSS is
// (/proc/<pid>/smaps, bench/operator/smaps.ts) and what the process says of its memory
// (process.memoryUsage(), via bench/operator/memory-probe.ts); --malloc-trim then has gdb print
// glibc's malloc_stats() and call malloc_trim(0), and reads the RSS again. An operator whose RSS
// passes --max-rss-mb is killed and reported as a runaway.
//
// The real `svc operator` command runs as its own process; its RSS is read from its /metrics
// (process_resident_memory_bytes) after a forced-free settle: once empty, once with every
// object cached and every flag's status written. The flags match no workload, so no
// Deployment rolls and the controller manager stays idle: this measures the caches and the
// per-flag state, not a rollout.
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, FEATURE_FLAG } from "@svc/core";
import { installCrds } from "@svc/kube";
import { startLocalControlPlane } from "@svc/localkube";
import { pool } from "../support/pool.ts";
import { type OperatorRun, startOperator, whereTheMemoryIs } from "./memory-operator.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const { values: args } = parseArgs({
  options: {
    workloads: { type: "string", default: "5000" },
    flags: { type: "string", default: "1000" },
    snapshot: { type: "string" },
    "node-options": { type: "string" },
    // The caches as before trimming (bench/operator/untrimmed-operator.ts): the baseline.
    untrimmed: { type: "boolean", default: false },
    variant: { type: "string", multiple: true },
    smaps: { type: "boolean", default: false },
    "malloc-trim": { type: "boolean", default: false },
    "max-rss-mb": { type: "string", default: "4096" },
  },
});
const workloadCount = Number(args.workloads);
const flagCount = Number(args.flags);
const NAMESPACES = 10;
const variants = args.variant ?? [args.untrimmed ? "untrimmed untrimmed" : "default"];

/**
 * A fleet's mix: every namespace has Deployments; the first three also StatefulSets and
 * DaemonSets (a fifth of their workloads each), so most namespaces lack two of the kinds.
 */
function workloadKind(i: number): "Deployment" | "StatefulSet" | "DaemonSet" {
  if (i % NAMESPACES >= 3) return "Deployment";
  const slot = Math.floor(i / NAMESPACES) % 5;
  return slot === 1 ? "StatefulSet" : slot === 2 ? "DaemonSet" : "Deployment";
}

/**
 * Creates an object, again after a transport failure (the loaded kube-apiserver sometimes ends
 * the connection): a create that went through before the failure answers 409, done too.
 */
async function create(send: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await send();
      return;
    } catch (error) {
      const code = (error as { code?: number }).code;
      if (code === 409 && attempt > 1) return;
      if (code !== undefined || attempt >= 5) throw error;
      await new Promise((r) => setTimeout(r, 1000 * attempt));
    }
  }
}

const controlPlane = await startLocalControlPlane();
let operators: OperatorRun[] = [];
try {
  const kc = controlPlane.kubeConfig();
  await installCrds(kc);
  const core = kc.makeApiClient(CoreV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  const objects = kc.makeApiClient(CustomObjectsApi);
  await core.createNamespace({ body: { metadata: { name: "svc-system" } } });
  const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `mem-${i}`);
  for (const name of namespaces) await core.createNamespace({ body: { metadata: { name } } });

  operators = await Promise.all(
    variants.map((spec) =>
      startOperator(spec, {
        root: ROOT,
        kubeconfigPath: controlPlane.kubeconfigPath,
        nodeOptions: args["node-options"] ?? "",
        snapshotDir: args.snapshot,
        probe: args.smaps,
        maxRssMb: Number(args["max-rss-mb"]),
      }),
    ),
  );
  // A runaway operator (killed by the bound) drops out of the run; the others go on.
  const each = <T>(f: (o: OperatorRun) => Promise<T>) =>
    Promise.all(
      operators
        .filter((o) => o.runaway === undefined)
        .map((o) =>
          f(o).catch((error: unknown) => {
            if (o.runaway === undefined) throw error;
          }),
        ),
    );
  const baseNamespaces = NAMESPACES + 5; // ours, svc-system and the cluster's own
  await each(async (o) => {
    o.emptyRss = await o.settledRss("the empty cluster cached", baseNamespaces);
  });
  // The empty operator's live heap, the baseline of the live heap per cached object.
  await each((o) => o.snapshot("the empty operator"));

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
      await create(() =>
        kind === "StatefulSet"
          ? apps.createNamespacedStatefulSet({
              namespace,
              body: { metadata, spec: { replicas: 0, serviceName: name, selector, template } },
            })
          : kind === "DaemonSet"
            ? apps.createNamespacedDaemonSet({ namespace, body: { metadata, spec: { selector, template } } })
            : apps.createNamespacedDeployment({
                namespace,
                body: { metadata, spec: { replicas: 0, selector, template } },
              }),
      );
    },
  );
  // The live heap with the workloads cached and no flag yet: the heap per cached workload.
  if (args.snapshot !== undefined) {
    await each((o) => o.settledRss("the workloads cached", baseNamespaces + workloadCount));
    await each((o) => o.snapshot("the operator with the workloads cached"));
  }
  const flagsFrom = Date.now();
  await pool(
    Array.from({ length: flagCount }, (_, i) => i),
    16,
    (i) =>
      create(() =>
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
      ),
  );
  const cached = workloadCount + flagCount + baseNamespaces;
  await each(async (o) => {
    o.fullRss = await o.settledRss("every object cached and reconciled", cached, flagsFrom);
  });
  for (const o of operators) {
    if (o.runaway !== undefined) continue;
    await o.readHeap();
    if (args.smaps) await whereTheMemoryIs(o, { mallocTrim: args["malloc-trim"] });
    await o.snapshot("the full operator");
  }
  const mb = (bytes: number | undefined) => (bytes === undefined ? "–" : (bytes / 1024 / 1024).toFixed(0));
  const perObject = (o: OperatorRun) =>
    o.fullRss === undefined || o.emptyRss === undefined
      ? "–"
      : Math.round((o.fullRss - o.emptyRss) / (workloadCount + flagCount));
  // The machine is shared: note its load beside the figures.
  const load = loadavg()
    .map((n) => n.toFixed(1))
    .join(" ");
  console.log(`${workloadCount} workloads, ${flagCount} flags; load average ${load}`);
  console.log(
    "| variant | RSS empty MB | RSS full MB | peak RSS MB | heap committed / used MB | external MB | bytes per cached object | flags settled s | CPU s | mean reconcile ms |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const o of operators)
    console.log(
      `| ${o.name}${o.runaway === undefined ? "" : ` (runaway: ${o.runaway})`} | ${mb(o.emptyRss)} | ${mb(o.fullRss)} | ${o.peakRssMb.toFixed(0)} | ${mb(o.heapTotal)} / ${mb(o.heapUsed)} | ${mb(o.external)} | ${perObject(o)} | ${o.settledSeconds?.toFixed(1) ?? "–"} | ${o.cpuSeconds?.toFixed(0) ?? "–"} | ${o.meanReconcileMs?.toFixed(1) ?? "–"} |`,
    );
  if (args.smaps) {
    // RSS and V8's heap at the same instant (the metrics above are read seconds apart, and V8's
    // memory reducer may shrink the heap in between): what is outside the heap.
    console.log("| variant | RSS MB | heapTotal MB | heapUsed MB | external MB | RSS − heapTotal MB |");
    console.log("| --- | --- | --- | --- | --- | --- |");
    for (const o of operators) {
      const u = o.usage;
      if (u !== undefined)
        console.log(
          `| ${o.name} | ${mb(u.rss)} | ${mb(u.heapTotal)} | ${mb(u.heapUsed)} | ${mb(u.external)} | ${mb(u.rss - u.heapTotal)} |`,
        );
    }
  }
} finally {
  for (const o of operators) o.stop();
  await controlPlane.stop();
}
