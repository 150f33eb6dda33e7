// Where a sidecar's memory goes with targeted flags, outside the pod: 5,000 flags held the ways
// the sidecar could hold them, on Bun (the image's runtime), one way per process so that none
// inherits another's pages. Per way: resident growth and retained JS heap, each after a full GC.
//
//   bun bench/node/flagd-compile-memory.ts            (runs every way, one child process each)
//   bun bench/node/flagd-compile-memory.ts <way>      (one way)
//
// Ways: specs (kept as written: a lazy compile until first use), static (no targeting, through
// flagd-core), compiled and interpreter (one MemoryStorage per flag, as compileFlag does),
// compiled-batch and interpreter-batch (all in one setConfigurations), engines (5,000 bare
// json-logic-engine LogicEngines). Needs Bun: node_modules/@oven/bun-linux-x64/bin/bun.
import { spawnSync } from "node:child_process";
import { MemoryStorage, type FeatureFlag } from "@openfeature/flagd-core";
import type { Logger } from "@openfeature/core";
import { LogicEngine } from "json-logic-engine";
import { flagdFlagOf, type EvaluatedSpec } from "@svc/core/targeting/flagd";
import { targetedSpec } from "../support/targeted-flags.ts";

const COUNT = 5000;
const WAYS = [
  "specs",
  "static",
  "compiled",
  "interpreter",
  "compiled-batch",
  "interpreter-batch",
  "engines",
] as const;
type Way = (typeof WAYS)[number];
const SILENT: Logger = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} };
const MB = 1024 * 1024;

const staticSpec = (i: number): EvaluatedSpec => ({
  type: "string",
  defaultValue: `value ${i} of a flag served by the sidecar`,
});

/** One flag parsed as compileFlag does (strict off, as the sidecar calls it). */
function compileOne(key: string, spec: EvaluatedSpec, interpreter: boolean): FeatureFlag | undefined {
  const storage = new MemoryStorage(SILENT, { disableDynamicCodeGeneration: interpreter });
  storage.setConfigurations(JSON.stringify({ flags: { [key]: flagdFlagOf(spec) } }), false);
  return storage.getFlag(key);
}

function hold(way: Way): unknown[] {
  const keys = Array.from({ length: COUNT }, (_, i) => i);
  switch (way) {
    case "specs":
      return keys.map(targetedSpec);
    case "static":
      return keys.map((i) => compileOne(`flag-${i}`, staticSpec(i), false));
    case "compiled":
    case "interpreter":
      return keys.map((i) => compileOne(`flag-${i}`, targetedSpec(i), way === "interpreter"));
    case "compiled-batch":
    case "interpreter-batch": {
      const flags = Object.fromEntries(keys.map((i) => [`flag-${i}`, flagdFlagOf(targetedSpec(i))]));
      const storage = new MemoryStorage(SILENT, {
        disableDynamicCodeGeneration: way === "interpreter-batch",
      });
      storage.setConfigurations(JSON.stringify({ flags }), false);
      return [...storage.getFlags().values()];
    }
    case "engines":
      return keys.map(() => new LogicEngine());
  }
}

function measure(way: Way): void {
  const bun = (globalThis as { Bun?: { gc: (full: boolean) => void } }).Bun;
  if (bun === undefined) throw new Error("run this with Bun, the sidecar image's runtime");
  bun.gc(true);
  const before = process.memoryUsage();
  const held = hold(way);
  for (const flag of held)
    if (typeof flag === "object" && flag !== null && "evaluate" in flag)
      (flag as FeatureFlag).evaluate({ targetingKey: "user-1", tenant: "tenant-1" }, SILENT);
  bun.gc(true);
  const after = process.memoryUsage();
  const mb = (n: number) => `${n >= 0 ? "+" : ""}${(n / MB).toFixed(1)} MB`;
  console.log(
    `| ${way} | ${mb(after.rss - before.rss)} | ${mb(after.heapUsed - before.heapUsed)} | ${held.length} |`,
  );
}

const way = process.argv[2];
if (way === undefined) {
  console.log(`| ${COUNT} flags held as | RSS growth | retained JS heap | held |`);
  console.log("| --- | ---: | ---: | ---: |");
  for (const each of WAYS) spawnSync(process.execPath, [import.meta.filename, each], { stdio: "inherit" });
} else if ((WAYS as readonly string[]).includes(way)) {
  measure(way as Way);
} else {
  throw new Error(`unknown way ${way}; one of ${WAYS.join(", ")}`);
}
