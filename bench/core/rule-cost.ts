// How long the API holds its event loop for a rule an untrusted user sends (issue 37, "rules
// bounded as evaluated"): the worst rules that pass packages/core/src/targeting/targeting-cost.ts's bounds,
// each validated as a create or a draft evaluate validates it (validateFlagSpec: the cost check,
// then flagd-core's strict parse and a first evaluation) and evaluated with the largest context
// the API and the sidecar accept (1,000 values), beside a plain rule in the same run (the floor);
// and the over-bound rules of the issue, refused. Median of --rounds after one warm-up round.
//
//   node bench/core/rule-cost.ts [--rounds 21]
import { parseArgs } from "node:util";
import { validateFlagSpec } from "@svc/core";
import { compileFlag, evaluateFlag } from "@svc/core/targeting/flagd";
import { CONTEXT_LIMITS } from "@svc/core/targeting/evaluation-context";
import { RULE_LIMITS, ruleCostProblem, ruleCosts } from "@svc/core/targeting/targeting-cost";
import { overBoundRules, refChain } from "../../test/support/hostile-targeting.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "21" } } });
const rounds = Number(values.rounds);

function items(n: number): number[];
function items<T>(n: number, of: (i: number) => T): T[];
function items(n: number, of: (i: number) => unknown = (i) => i): unknown[] {
  return Array.from({ length: n }, (_, i) => of(i));
}
/** A context as large as accepted: 999 strings of 60 characters in one array (~60 KB), a tenant. */
const context = {
  tenant: "acme",
  groups: items(CONTEXT_LIMITS.values - 1, (i) => `group-${i}`.padEnd(60, ".")),
};

type Rules = { targeting: unknown; evaluators?: Record<string, unknown> };
const plain: Rules = { targeting: { if: [{ in: [{ var: "tenant" }, ["acme", "globex"]] }, "on", "off"] } };
/** A body of ~19 steps, run once per item (flagd's own operators fail inside an iteration). */
const body = {
  and: [
    { "!=": [{ var: "" }, "x"] },
    { "!==": [{ var: "" }, "group-x"] },
    { in: [{ var: "" }, ["group-1", "group-2", "group-3"]] },
    { or: [{ "==": [{ var: "" }, "group-998"] }, { "==": [{ var: "" }, "y"] }] },
  ],
};
const cases: [string, Rules][] = [
  ["plain rule (floor): `in` a list of 2", plain],
  [
    "`some` over a context array of 999, a body of ~19 steps",
    { targeting: { if: [{ some: [{ var: "groups" }, body] }, "on", "off"] } },
  ],
  [
    "`cat` of the context's whole array (~60 KB) per item of 3, then `in`",
    {
      targeting: {
        if: [{ some: [items(3), { in: ["zzz", { cat: [{ var: "../../groups" }] }] }] }, "on", "off"],
      },
    },
  ],
  [
    "`map` over 70 literal items inside `map` over 70 (4,900 body runs)",
    {
      targeting: {
        if: [{ in: [1, { map: [items(70), { map: [items(70), { "+": [{ var: "" }, 1] }] }] }] }, "on", "off"],
      },
    },
  ],
  [
    "`in` over a literal list of 7,000 strings (near 64 KiB as written)",
    { targeting: { if: [{ in: [{ var: "tenant" }, items(7_000, (i) => `t${i}`)] }, "on", "off"] } },
  ],
  [`\`$ref\` chain doubling ${longestChain()} deep (the longest that passes)`, refChain(longestChain())],
];

/** The deepest refChain the bounds let through. */
function longestChain(): number {
  let depth = 1;
  while (ruleCostProblem(refChain(depth + 1).targeting, refChain(depth + 1).evaluators) === undefined)
    depth++;
  return depth;
}

const spec = (rules: Rules) => ({
  type: "boolean",
  defaultValue: "false",
  variants: { on: "true", off: "false" },
  defaultVariant: "off",
  ...rules,
  delivery: { sidecar: { selector: { matchLabels: { app: "web" } } } },
});

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/** CPU ms (this process's, so that other jobs on the machine count less) of a call. */
function cpuMs(work: () => void, times = 1): number {
  const start = process.cpuUsage();
  for (let i = 0; i < times; i++) work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / times;
}

/** ms of: validation as a write takes it; one evaluation of the compiled rule with the context. */
function measure(rules: Rules): { validate: number; evaluate: number; steps: number; bytes: number } {
  const validateSamples: number[] = [];
  const evaluateSamples: number[] = [];
  const checked = validateFlagSpec(spec(rules));
  if (!checked.ok) throw new Error(`refused: ${JSON.stringify(checked.errors)}`);
  const compiled = compileFlag("bench", checked.value, false);
  const answer = evaluateFlag("bench", compiled, context);
  if (answer.errorCode !== undefined) throw new Error(`evaluation failed: ${answer.errorDetails}`);
  for (let round = 0; round <= rounds; round++) {
    const validated = cpuMs(() => validateFlagSpec(spec(rules)));
    const evaluated = cpuMs(() => evaluateFlag("bench", compiled, context), 50);
    if (round === 0) continue;
    validateSamples.push(validated);
    evaluateSamples.push(evaluated);
  }
  const costs = ruleCosts(rules.targeting, rules.evaluators);
  const steps = Object.values(costs).reduce((n, c) => Math.max(n, c.steps), 0);
  const bytes = Object.values(costs).reduce((n, c) => n + c.bytes, 0);
  return { validate: median(validateSamples), evaluate: median(evaluateSamples), steps, bytes };
}

console.log(`limits: ${JSON.stringify(RULE_LIMITS)}; median of ${rounds} rounds`);
console.log(
  "| rule | expanded bytes | steps (bound) | validate CPU ms | ×floor | evaluate CPU ms | ×floor |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
let floor: { validate: number; evaluate: number } | undefined;
for (const [name, rules] of cases) {
  const m = measure(rules);
  floor ??= m;
  const ratio = (a: number, b: number) => (a / b).toFixed(1);
  console.log(
    `| ${name} | ${m.bytes} | ${m.steps} | ${m.validate.toFixed(3)} | ${ratio(m.validate, floor.validate)} | ${m.evaluate.toFixed(3)} | ${ratio(m.evaluate, floor.evaluate)} |`,
  );
}
console.log("\n| over-bound rule | refused by | check CPU ms (median) |");
console.log("| --- | --- | ---: |");
for (const [name, rules] of overBoundRules) {
  const samples: number[] = [];
  let problem: string | undefined;
  for (let round = 0; round <= rounds; round++) {
    const ms = cpuMs(() => (problem = ruleCostProblem(rules.targeting, rules.evaluators)?.message));
    if (round > 0) samples.push(ms);
  }
  console.log(`| ${name} | ${problem ?? "NOT REFUSED"} | ${median(samples).toFixed(3)} |`);
}
