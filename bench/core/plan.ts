// Delivery planning benchmark: CPU time of planWorkload for every workload of a namespace
// (the operator's full resync) and of one blast-radius preview, with the namespace's flags
// passed as a list (indexed again on every call) and indexed once. The floor, measured in the
// same run, is the cheapest possible look at every (workload, flag) pair: comparing their
// namespaces.
//
//   node bench/core/plan.ts [--workloads 5000] [--flags 1000] [--rounds 5]
//
// Prints a Markdown table (paste into bench/RESULTS.md): the median over the rounds.
import { parseArgs } from "node:util";
import {
  indexFlags,
  planWorkload,
  previewFlag,
  type FeatureFlagResource,
  type FeatureFlagSpec,
  type Workload,
} from "@svc/core";

const { values: args } = parseArgs({
  options: {
    workloads: { type: "string", default: "5000" },
    flags: { type: "string", default: "1000" },
    rounds: { type: "string", default: "5" },
  },
});
const [workloadCount, flagCount, rounds] = [args.workloads, args.flags, args.rounds].map(Number) as [
  number,
  number,
  number,
];
/** Each app label is carried by workloadCount / APPS workloads and selected by flagCount / APPS flags. */
const APPS = 50;

function delivery(i: number): FeatureFlagSpec["delivery"] {
  const selector = { matchLabels: { app: `app-${i % APPS}` } };
  if (i % 3 === 0) return { envVar: { selector } };
  if (i % 3 === 1) return { configMap: { configMapName: `cm-${i % 10}`, key: `k${i}`, selector } };
  return { sidecar: { selector } };
}

const flags: FeatureFlagResource[] = Array.from({ length: flagCount }, (_, i) => ({
  metadata: { name: `flag-${i}`, namespace: "shop" },
  spec: { type: "string", defaultValue: `v${i}`, enabled: true, delivery: delivery(i) },
}));
const workloads: Workload[] = Array.from({ length: workloadCount }, (_, i) => ({
  kind: "Deployment",
  object: {
    metadata: { name: `w${i}`, namespace: "shop", labels: { app: `app-${i % APPS}`, team: "shop" } },
    spec: {
      selector: { matchLabels: { pod: `w${i}` } },
      template: {
        metadata: { labels: { app: `app-${i % APPS}`, pod: `w${i}` } },
        spec: {
          containers: [{ name: "app", image: "shop/app:1", env: [{ name: "LOG_LEVEL", value: "info" }] }],
        },
      },
    },
  },
}));

/** The local cluster, without labels: none of these flags is targeted. */
const CLUSTER = { id: "local", labels: {} };

/** CPU milliseconds (user) that `run` takes. */
function cpuMs(run: () => void): number {
  const start = process.cpuUsage();
  run();
  return process.cpuUsage(start).user / 1000;
}

const measures = {
  floor: () => {
    let same = 0;
    for (const w of workloads)
      for (const f of flags) if (w.object.metadata?.namespace === f.metadata.namespace) same++;
    if (same !== workloadCount * flagCount) throw new Error("floor miscounted");
  },
  list: () => {
    for (const w of workloads) planWorkload(w, flags, CLUSTER);
  },
  index: () => {
    const index = indexFlags(flags);
    for (const w of workloads) planWorkload(w, index, CLUSTER);
  },
  preview: () => {
    const candidate = flags[0];
    if (candidate === undefined) return;
    previewFlag({
      candidate: { ...candidate, spec: { ...candidate.spec, defaultValue: "new" } },
      workloads,
      namespaceFlags: flags,
      cluster: CLUSTER,
    });
  },
};

const samples: Record<keyof typeof measures, number[]> = { floor: [], list: [], index: [], preview: [] };
for (let round = 0; round < rounds; round++) {
  for (const [name, run] of Object.entries(measures)) samples[name as keyof typeof measures].push(cpuMs(run));
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const floor = median(samples.floor);
const matched = workloadCount / APPS;
console.log(
  `${workloadCount} workloads, ${flagCount} flags (${flagCount / APPS} match each workload), median of ${rounds}\n`,
);
console.log("| measure | CPU ms | per workload µs | ratio to floor |");
console.log("| --- | --- | --- | --- |");
const row = (label: string, ms: number, per: number) => {
  console.log(
    `| ${label} | ${ms.toFixed(0)} | ${((ms / per) * 1000).toFixed(1)} | ${(ms / floor).toFixed(1)} |`,
  );
};
row(`floor: compare namespaces of every pair`, floor, workloadCount);
row(`planWorkload × ${workloadCount}, flags as a list`, median(samples.list), workloadCount);
row(`planWorkload × ${workloadCount}, flags indexed once`, median(samples.index), workloadCount);
row(`previewFlag (value change; ${matched} workloads match)`, median(samples.preview), matched);
