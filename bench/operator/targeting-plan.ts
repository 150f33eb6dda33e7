// Targeting benchmark: CPU time of the operator's plan of one namespace (indexFlags once, then
// planWorkload for every workload, as its resync and its flag statuses do) for 1,000 workloads,
// with one envVar flag that is static and, in the same run, the same flag with a per-workload
// rule (fractional over the workload's targetingKey, or a rule on its labels). The flag's rule is
// compiled once per plan; "compiled per workload" plans each workload with the flag list (a new
// index, so a new compile, each time) to show what compiling once saves.
//
//   node bench/operator/targeting-plan.ts [--workloads 1000] [--rounds 7]
//
// Prints a Markdown table (paste into bench/RESULTS.md): the median over the rounds.
import { parseArgs } from "node:util";
import {
  indexFlags,
  planWorkload,
  type DeliveryCluster,
  type FeatureFlagResource,
  type FeatureFlagSpec,
  type Workload,
} from "@svc/core";

const { values: args } = parseArgs({
  options: {
    workloads: { type: "string", default: "1000" },
    rounds: { type: "string", default: "7" },
  },
});
const [workloadCount, rounds] = [args.workloads, args.rounds].map(Number) as [number, number];

const cluster: DeliveryCluster = { id: "eu-1", labels: { region: "eu" } };
const workloads: Workload[] = Array.from({ length: workloadCount }, (_, i) => ({
  kind: "Deployment",
  object: {
    metadata: { name: `w${i}`, namespace: "shop", labels: { app: "shop", tier: i % 2 ? "back" : "front" } },
    spec: {
      selector: { matchLabels: { pod: `w${i}` } },
      template: {
        metadata: { labels: { app: "shop", pod: `w${i}` } },
        spec: { containers: [{ name: "app", image: "shop/app:1" }] },
      },
    },
  },
}));

const flagWith = (spec: Partial<FeatureFlagSpec>): FeatureFlagResource[] => [
  {
    metadata: { name: "checkout", namespace: "shop" },
    spec: {
      type: "boolean",
      defaultValue: "false",
      enabled: true,
      delivery: { envVar: { selector: { matchLabels: { app: "shop" } } } },
      ...spec,
    },
  },
];
const variants = { variants: { on: "true", off: "false" }, defaultVariant: "off" };
const flags = {
  static: flagWith({}),
  fractional: flagWith({
    ...variants,
    targeting: {
      fractional: [
        ["on", 10],
        ["off", 90],
      ],
    },
  }),
  labels: flagWith({
    ...variants,
    targeting: { if: [{ "==": [{ var: "labels.tier" }, "front"] }, "on", "off"] },
  }),
};

/** CPU milliseconds (user) that `run` takes. */
function cpuMs(run: () => void): number {
  const start = process.cpuUsage();
  run();
  return process.cpuUsage(start).user / 1000;
}

/** The operator's plan of the namespace: flags indexed (and rules compiled) once. */
const planNamespace = (namespaceFlags: FeatureFlagResource[]) => () => {
  const index = indexFlags(namespaceFlags);
  for (const w of workloads) planWorkload(w, index, cluster);
};
const measures = {
  static: planNamespace(flags.static),
  fractional: planNamespace(flags.fractional),
  labels: planNamespace(flags.labels),
  perWorkload: () => {
    for (const w of workloads) planWorkload(w, flags.fractional, cluster);
  },
};

// One warm-up round: the first calls pay for the JIT and for flagd-core's lazy set-up.
for (const run of Object.values(measures)) run();
const samples: Record<keyof typeof measures, number[]> = {
  static: [],
  fractional: [],
  labels: [],
  perWorkload: [],
};
for (let round = 0; round < rounds; round++) {
  for (const [name, run] of Object.entries(measures)) samples[name as keyof typeof measures].push(cpuMs(run));
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const floor = median(samples.static);
const on = workloads.filter(
  (w) => planWorkload(w, flags.fractional, cluster).env[0]?.value === "true",
).length;
console.log(
  `${workloadCount} workloads, one envVar flag; the 10 % fractional rule turns ${on} on; median of ${rounds}\n`,
);
console.log("| plan of the namespace | CPU ms | per workload µs | ratio to static |");
console.log("| --- | --- | --- | --- |");
const row = (label: string, ms: number) => {
  console.log(
    `| ${label} | ${ms.toFixed(1)} | ${((ms / workloadCount) * 1000).toFixed(1)} | ${(ms / floor).toFixed(2)} |`,
  );
};
row("static flag (no targeting)", floor);
row("fractional 10 % over workloads, compiled once", median(samples.fractional));
row("rule on the workload's labels, compiled once", median(samples.labels));
row("fractional, compiled per workload (flags as a list)", median(samples.perWorkload));
