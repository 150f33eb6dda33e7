// The sidecar's flag state with 5,000 flags, outside the pod: the FlagState of
// packages/sidecar/src/flags.ts fed one watch event per flag (each parsed from its JSON text, as
// the watch delivers it), on Bun (the image's runtime), one way per process so that none inherits
// another's pages. Per way: resident growth and retained JS heap after a full GC, once every flag
// is served (GET /flags rendered) and again after one OFREP bulk evaluation with a context.
//
//   bun bench/sidecar/state-memory.ts            (every way, one child process each)
//   bun bench/sidecar/state-memory.ts <way>      (one way: static, targeted)
//   COMPILED_RULES=5000 bun bench/sidecar/state-memory.ts   (the sidecar keeping more rules compiled)
//
// The in-pod figure (the kubelet's working set) is bench/node/sidecar-memory.ts; this one needs
// no node and shows what the sidecar's own code keeps. Needs Bun: node_modules/@oven/bun-linux-x64/bin/bun.
import { spawnSync } from "node:child_process";
import { COMPILED_RULES, FlagState } from "../../packages/sidecar/src/flags.ts";
import { targetedSpec } from "../support/targeted-flags.ts";

const COUNT = 5000;
const WAYS = ["static", "targeted"] as const;
type Way = (typeof WAYS)[number];
const MB = 1024 * 1024;

/** A FeatureFlag as the watch sends it (the fields the API server adds, abridged). */
function flagObject(way: Way, i: number): object {
  const spec =
    way === "static"
      ? { type: "string", defaultValue: `value ${i} of a flag served by the sidecar` }
      : targetedSpec(i);
  return {
    apiVersion: "svc.io/v1",
    kind: "FeatureFlag",
    metadata: {
      name: `flag-${i}`,
      namespace: "bench",
      uid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      resourceVersion: String(1000 + i),
      generation: 1,
      creationTimestamp: "2026-11-25T12:00:00Z",
    },
    spec: { ...spec, enabled: true, delivery: { sidecar: {} } },
  };
}

function measure(way: Way): void {
  const bun = (globalThis as { Bun?: { gc: (full: boolean) => void } }).Bun;
  if (bun === undefined) throw new Error("run this with Bun, the sidecar image's runtime");
  const state = new FlagState(Number(process.env["COMPILED_RULES"] ?? COMPILED_RULES));
  bun.gc(true);
  const before = process.memoryUsage();
  const loadStarted = performance.now();
  for (let i = 0; i < COUNT; i++) {
    const event = JSON.stringify({ type: "ADDED", object: flagObject(way, i) });
    state.apply("ADDED", (JSON.parse(event) as { object: object }).object);
  }
  state.listResponse();
  const loadMs = performance.now() - loadStarted;
  bun.gc(true);
  const loaded = process.memoryUsage();
  let started = performance.now();
  const bulk = state.ofrepBulk({ targetingKey: "user-1", tenant: "tenant-1" });
  const firstBulkMs = performance.now() - started;
  started = performance.now();
  state.ofrepBulk({ targetingKey: "user-2", tenant: "tenant-2" });
  const secondBulkMs = performance.now() - started;
  bun.gc(true);
  const evaluated = process.memoryUsage();
  const mb = (n: number) => `${n >= 0 ? "+" : ""}${(n / MB).toFixed(1)} MB`;
  console.log(
    `| ${way} | ${mb(loaded.rss - before.rss)} | ${mb(loaded.heapUsed - before.heapUsed)} | ` +
      `${mb(evaluated.rss - before.rss)} | ${mb(evaluated.heapUsed - before.heapUsed)} | ` +
      `${state.size} flags loaded in ${loadMs.toFixed(0)} ms, bulk ${bulk.response.body.length} bytes in ${firstBulkMs.toFixed(0)} ms, again ${secondBulkMs.toFixed(0)} ms |`,
  );
}

const way = process.argv[2];
if (way === undefined) {
  console.log(
    `| ${COUNT} flags | RSS growth, served | JS heap, served | RSS growth, bulk-evaluated | JS heap, bulk-evaluated | load and bulk evaluations (CPU time) |`,
  );
  console.log("| --- | ---: | ---: | ---: | ---: | --- |");
  for (const each of WAYS) spawnSync(process.execPath, [import.meta.filename, each], { stdio: "inherit" });
} else if ((WAYS as readonly string[]).includes(way)) {
  measure(way as Way);
} else {
  throw new Error(`unknown way ${way}; one of ${WAYS.join(", ")}`);
}
