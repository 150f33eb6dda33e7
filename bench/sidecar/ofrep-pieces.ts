// The CPU of the sidecar's own steps of one OFREP single evaluation, in-process (no HTTP), on
// the runtime that runs it (Bun in the image): the request's context parsed and checked, the
// flag evaluated by flagd-core, the answer rendered and prepared, for the static and the
// targeted (`fractional`) flag of bench/sidecar/http-layer.ts. Rounds of 200,000 calls each;
// microseconds of CPU per call (process.cpuUsage), the best and worst round.
//
//   node_modules/@oven/bun-linux-x64/bin/bun bench/sidecar/ofrep-pieces.ts [rounds]
import { FlagState } from "../../packages/sidecar/src/flags.ts";
import { parseEvaluationRequest } from "../../packages/sidecar/src/ofrep.ts";
import { ofrepSingle } from "../../packages/sidecar/src/responses.ts";
import { evaluateFlag, compileFlagLenient } from "@svc/core/targeting/flagd";

const ROUNDS = Number(process.argv[2] ?? 5);
const CALLS = 200_000;
const BODY = JSON.stringify({ context: { targetingKey: "user-1" } });
const TARGETED = {
  type: "string",
  defaultValue: "blue",
  variants: { blue: "blue", green: "green" },
  defaultVariant: "blue",
  targeting: {
    fractional: [
      ["blue", 50],
      ["green", 50],
    ],
  },
} as const;

const state = new FlagState();
state.replace([
  { metadata: { name: "static" }, spec: { type: "integer", defaultValue: "42" } },
  { metadata: { name: "targeted" }, spec: TARGETED },
]);
const staticEntry = state.byKey("static");
const targetedEntry = state.byKey("targeted");
if (staticEntry === undefined || targetedEntry === undefined) throw new Error("flags not loaded");
const context = { targetingKey: "user-1" };
const compiled = compileFlagLenient("targeted", { ...TARGETED, variants: { ...TARGETED.variants } });

const steps: Record<string, () => unknown> = {
  "parse and check the request body": () => parseEvaluationRequest(BODY),
  "flagd-core evaluation (evaluateFlag)": () => evaluateFlag("targeted", compiled, context),
  "static: answer (ofrepSingle)": () => ofrepSingle(staticEntry, context),
  "targeted: evaluate, render, prepare (ofrepSingle)": () => ofrepSingle(targetedEntry, context),
  "targeted: the whole step (parse, then ofrepSingle)": () => {
    const request = parseEvaluationRequest(BODY);
    return "context" in request ? ofrepSingle(targetedEntry, request.context) : undefined;
  },
};

let sink = 0;
for (const [name, step] of Object.entries(steps)) {
  const perCall: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) if (step() !== undefined) sink++;
    const used = process.cpuUsage(started);
    perCall.push((used.user + used.system) / CALLS);
  }
  perCall.sort((a, b) => a - b);
  console.log(`| ${name} | ${perCall[0]?.toFixed(2)} | ${perCall.at(-1)?.toFixed(2)} |`);
}
if (sink === 0) console.log("nothing ran");
