/**
 * How targeting-cost.ts measures a rule as flagd-core builds it, without building it: each
 * operation's JSON size, nesting and worst-case evaluation steps, with every `$ref` replaced by
 * its evaluator's measure (kept per evaluator). No I/O; the sidecar imports it.
 */
import { CONTEXT_LIMITS } from "./evaluation-context.ts";

/** A bound exceeded: which part of the rules (targeting, evaluators.<name>) and how. */
export interface RuleCostProblem {
  field: string;
  message: string;
}

/**
 * The operators of flagd-core's engine (json-logic-engine 5.0.7 and flagd's four), by what their
 * result may hold. An operator the engine does not have is no cost: flagd-core refuses to build
 * the rule (PARSE_ERROR) before evaluating anything, as flagd does.
 */
const SCALAR_OPERATORS = new Set([
  "==", "===", "!=", "!==", ">", ">=", "<", "<=", "%", "/", "*", "+", "-", "!", "!!", "not",
  "in", "cat", "substr", "max", "min", "length", "exists", "throw",
  "fractional", "sem_ver", "starts_with", "ends_with",
]); // prettier-ignore
/** Operators whose result is one of their arguments. */
const CHOOSING_OPERATORS = new Set(["if", "?:", "and", "or", "??", "try", "preserve"]);
/** Operators that read the context (or, inside an iteration, the item). */
const READING_OPERATORS = new Set(["var", "val", "get", "keys", "missing", "missing_some"]);
const ITERATING_OPERATORS = new Set(["map", "filter", "all", "every", "some", "none", "reduce"]);
/**
 * The engine's operators whose work these bounds cannot follow: `pipe` feeds each stage's result
 * to the next (a doubling per stage), `eachKey` builds objects. flagd's schema has neither.
 */
const UNBOUNDED_OPERATORS = new Set(["pipe", "eachKey"]);

/** What one rule costs after expansion; numbers saturate at CAP, never Infinity or NaN. */
export interface Cost {
  bytes: number;
  operations: number;
  depth: number;
  /** Worst-case evaluation steps. */
  steps: number;
  /** Upper bound on the values of its result (1 for a scalar). */
  size: number;
  /** `var`s that may read a reduce's accumulator. */
  accumulatorReads: number;
  /**
   * Characters of context text its result may hold that an iteration's body read from outside
   * its item (`../`): work on them is repeated per item, where work on the item adds up to the
   * context's text once.
   */
  outerText: number;
}

/** Characters scanned or copied per step: a step (an operation) costs ~30 times a character. */
const CHARACTERS_PER_STEP = 32;

const CAP = 1e200;
const add = (...terms: number[]) =>
  Math.min(
    CAP,
    terms.reduce((a, b) => a + b, 0),
  );
const times = (a: number, b: number) => (a === 0 || b === 0 ? 0 : Math.min(CAP, a * b));
const LEAF: Omit<Cost, "bytes"> = {
  operations: 0,
  depth: 0,
  steps: 0,
  size: 1,
  accumulatorReads: 0,
  outerText: 0,
};

export class Refusal extends Error {
  readonly problem: RuleCostProblem;
  constructor(problem: RuleCostProblem) {
    super(problem.message);
    this.problem = problem;
  }
}

/** The name a node refers to when it is exactly `{"$ref": name}` (what flagd-core replaces). */
function refName(node: object): string | undefined {
  const keys = Object.keys(node);
  const ref = (node as Record<string, unknown>)["$ref"];
  return keys.length === 1 && typeof ref === "string" ? ref : undefined;
}

/** Costs of rules, with each evaluator's cost kept per item size it is used under. */
export class Measure {
  readonly #evaluators: Readonly<Record<string, unknown>>;
  readonly #memo = new Map<string, Cost>();
  readonly #expanding = new Set<string>();
  #field = "targeting";

  constructor(evaluators: Readonly<Record<string, unknown>>) {
    this.#evaluators = evaluators;
  }

  part(field: string, rule: unknown): Cost {
    this.#field = field;
    return this.#cost(rule, 0);
  }

  /** `item`: the largest value `var` may read besides the context (an iterated item), 0 outside. */
  #cost(node: unknown, item: number): Cost {
    if (typeof node !== "object" || node === null) return { ...LEAF, bytes: JSON.stringify(node).length };
    if (Array.isArray(node)) return this.#array(node as unknown[], item);
    const ref = refName(node);
    if (ref !== undefined && Object.hasOwn(this.#evaluators, ref)) return this.#ref(ref, item);
    const entries = Object.entries(node);
    if (entries.length !== 1) return this.#data(entries, item);
    const [operator, args] = entries[0] as [string, unknown];
    const list = Array.isArray(args) ? (args as unknown[]) : [args];
    // An iteration's body reads the items of its first argument: measured first, once.
    const costs: Cost[] = [];
    for (const arg of list) {
      const first = costs[0];
      const iterated = ITERATING_OPERATORS.has(operator) && costs.length === 1 && first !== undefined;
      costs.push(this.#cost(arg, iterated ? Math.max(item, first.size) : item));
    }
    const argsBytes = Array.isArray(args) ? add(2, Math.max(0, list.length - 1)) : 0;
    const argsDepth = Math.max(0, ...sizes(costs, "depth"));
    return {
      bytes: add(JSON.stringify(operator).length + 3, argsBytes, ...sizes(costs, "bytes")),
      operations: add(1, ...sizes(costs, "operations")),
      depth: 1 + (Array.isArray(args) ? (list.length === 0 ? 0 : 1 + argsDepth) : argsDepth),
      ...this.#evaluation(operator, list, costs, item),
    };
  }

  #evaluation(operator: string, list: unknown[], costs: Cost[], item: number) {
    const steps = add(1, ...sizes(costs, "steps"));
    const accumulatorReads = add(...sizes(costs, "accumulatorReads"));
    const text = add(...sizes(costs, "outerText"));
    if (SCALAR_OPERATORS.has(operator)) {
      // Comparisons, `in`, `cat`... scan or copy the text they are given (coerced, for arrays).
      const scanned = Math.ceil(text / CHARACTERS_PER_STEP);
      const scan = operator === "in" ? add(scanned, costs[1]?.size ?? 0) : scanned;
      const kept = operator === "cat" || operator === "substr" ? text : 0;
      return { steps: add(steps, scan), size: 1, accumulatorReads, outerText: kept };
    }
    if (CHOOSING_OPERATORS.has(operator))
      return {
        steps,
        size: Math.max(1, ...sizes(costs, "size")),
        accumulatorReads,
        outerText: Math.max(0, ...sizes(costs, "outerText")),
      };
    if (operator === "merge")
      return {
        steps: add(steps, ...sizes(costs, "size")),
        size: add(...sizes(costs, "size")),
        accumulatorReads,
        outerText: text,
      };
    if (READING_OPERATORS.has(operator)) {
      const reads = (operator === "var" || operator === "val") && readsAccumulator(list[0]) ? 1 : 0;
      // What it reads: the context, an iterated item, or (get) one of its arguments.
      const size = Math.max(CONTEXT_LIMITS.values, item, ...sizes(costs, "size"));
      const outerText = item > 0 && readsOutside(operator, list[0]) ? CONTEXT_LIMITS.characters : text;
      return { steps, size, accumulatorReads: add(accumulatorReads, reads), outerText };
    }
    if (ITERATING_OPERATORS.has(operator)) return this.#iteration(operator, list, costs, steps);
    if (UNBOUNDED_OPERATORS.has(operator))
      throw new Refusal({
        field: this.#field,
        message: `uses ${JSON.stringify(operator)}, whose cost svc cannot bound (not one of flagd's operators)`,
      });
    // Not an operator of flagd-core's engine: flagd-core refuses the rule before evaluating it.
    return { steps, size: 1, accumulatorReads, outerText: 0 };
  }

  #iteration(operator: string, list: unknown[], costs: Cost[], steps: number) {
    const [array, body, initial] = costs;
    const items = Array.isArray(list[0]) ? list[0].length : (array?.size ?? 0);
    const bodySteps = times(items, body?.steps ?? 0);
    const total = add(steps, bodySteps);
    if (operator !== "reduce") {
      const size =
        operator === "map" ? times(items, body?.size ?? 1) : operator === "filter" ? (array?.size ?? 0) : 1;
      return {
        steps: total,
        size,
        accumulatorReads: add(array?.accumulatorReads ?? 0, initial?.accumulatorReads ?? 0),
        outerText: add(array?.outerText ?? 0, times(items, body?.outerText ?? 0)),
      };
    }
    // One read of the accumulator per step adds to it; two would double it per item.
    if ((body?.accumulatorReads ?? 0) > 1)
      throw new Refusal({
        field: this.#field,
        message: "reads a reduce's accumulator more than once in its body (the result could double per item)",
      });
    const size = add(initial?.size ?? 1, times(items, body?.size ?? 1));
    // Each step may copy the accumulator (merge, cat): bounded by its final size.
    return {
      steps: add(total, times(items, size)),
      size,
      accumulatorReads: add(array?.accumulatorReads ?? 0, initial?.accumulatorReads ?? 0),
      outerText: add(initial?.outerText ?? 0, times(items, body?.outerText ?? 0)),
    };
  }

  #array(items: unknown[], item: number): Cost {
    const costs = items.map((entry) => this.#cost(entry, item));
    return {
      bytes: add(2, Math.max(0, items.length - 1), ...sizes(costs, "bytes")),
      operations: add(...sizes(costs, "operations")),
      depth: costs.length === 0 ? 0 : 1 + Math.max(0, ...sizes(costs, "depth")),
      steps: add(1, ...sizes(costs, "steps")),
      size: add(1, ...sizes(costs, "size")),
      accumulatorReads: add(...sizes(costs, "accumulatorReads")),
      outerText: add(...sizes(costs, "outerText")),
    };
  }

  /** An object that is not one operation: flagd refuses it when strict; measured as data. */
  #data(entries: [string, unknown][], item: number): Cost {
    const costs = entries.map(([, value]) => this.#cost(value, item));
    const keys = entries.reduce((total, [key]) => total + JSON.stringify(key).length + 1, 0);
    return {
      bytes: add(2, keys, Math.max(0, entries.length - 1), ...sizes(costs, "bytes")),
      operations: add(...sizes(costs, "operations")),
      depth: costs.length === 0 ? 0 : 1 + Math.max(0, ...sizes(costs, "depth")),
      steps: add(1, ...sizes(costs, "steps")),
      size: add(1, ...sizes(costs, "size")),
      accumulatorReads: add(...sizes(costs, "accumulatorReads")),
      outerText: add(...sizes(costs, "outerText")),
    };
  }

  #ref(name: string, item: number): Cost {
    const key = `${item}\u0000${name}`;
    const known = this.#memo.get(key);
    if (known !== undefined) return known;
    if (this.#expanding.has(name))
      throw new Refusal({ field: `evaluators.${name}`, message: "refers to itself through $ref" });
    this.#expanding.add(name);
    const cost = this.#cost(this.#evaluators[name], item);
    this.#expanding.delete(name);
    this.#memo.set(key, cost);
    return cost;
  }
}

function sizes(costs: readonly Cost[], field: keyof Cost): number[] {
  return costs.map((cost) => cost[field]);
}

/** Whether a `var` may read a reduce's accumulator: its path starts so, or is computed. */
function readsAccumulator(path: unknown): boolean {
  const first = Array.isArray(path) ? (path as unknown[])[0] : path;
  if (typeof first === "number" || first === undefined || first === null) return false;
  return typeof first !== "string" || first.startsWith("accumulator");
}

/**
 * Whether a reader inside an iteration's body may read beyond its item: a `var` path that climbs
 * (`../`) or is computed, a `val` scope climb, or `get` and `keys` of anything.
 */
function readsOutside(operator: string, path: unknown): boolean {
  if (operator === "get" || operator === "keys") return true;
  const first = Array.isArray(path) ? (path as unknown[])[0] : path;
  if (operator === "val") return Array.isArray(first) || typeof first !== "string";
  if (first === undefined || first === null || typeof first === "number") return false;
  return typeof first !== "string" || first.startsWith("../");
}
