/**
 * What a flag's rules may cost to build and evaluate: one pure check, applied by the API when a
 * flag is written or evaluated, by the operator to every flag it reads, and by the sidecar before
 * it evaluates one (docs/targeting.md, "What a rule may cost").
 *
 * flagd-core replaces each `{"$ref": name}` by the evaluator's text before it parses the rule,
 * so a chain of evaluators that each use the next twice doubles per level: 1 KB written, 2^30
 * bytes built. Everything here is measured as flagd-core will build it — after expansion — but
 * computed from one summary per evaluator (memoised), in time linear in what was written.
 *
 * No I/O, and nothing imported but the context's bounds: the sidecar imports it
 * (`@svc/core/targeting-cost`) and stays small.
 */
import { CONTEXT_LIMITS } from "./evaluation-context.ts";

/** The bounds, chosen from flagd's testbed and real rule sets (docs/targeting.md). */
export const RULE_LIMITS = {
  /**
   * JSON text of targeting and evaluators together, after `$ref` expansion: what was allowed as
   * written (TARGETING_MAX_BYTES), so that expansion never builds more than a rule may hold.
   */
  expandedBytes: 64 * 1024,
  /** Operations (`{"op": args}` objects) after `$ref` expansion. */
  operations: 5_000,
  /** Levels of nesting after `$ref` expansion (as written: TARGETING_MAX_DEPTH, the same). */
  depth: 64,
  /** Items of one literal array. */
  arrayItems: 10_000,
  /** Characters of one literal string. */
  stringChars: 4_096,
  /**
   * Steps of one evaluation, in the worst case: each operation is a step, and an iteration
   * (`map`, `filter`, `reduce`, `all`, `some`, `none`) runs its body once per item — of a literal
   * array, its length; of anything else, at most the evaluation context's values.
   */
  evaluationSteps: 20_000,
} as const;

/** flagd's operators (its targeting schema) and JSON Logic's that it accepts. */
const SCALAR_OPERATORS = new Set([
  "==", "===", "!=", "!==", ">", ">=", "<", "<=", "%", "/", "*", "+", "-", "!", "!!",
  "in", "cat", "substr", "max", "min", "fractional", "sem_ver", "starts_with", "ends_with",
]); // prettier-ignore
/** Operators whose result is one of their arguments. */
const CHOOSING_OPERATORS = new Set(["if", "?:", "and", "or"]);
/** Operators that read the context (or, inside an iteration, the item). */
const READING_OPERATORS = new Set(["var", "missing", "missing_some"]);
const ITERATING_OPERATORS = new Set(["map", "filter", "all", "some", "none", "reduce"]);

/** A bound exceeded: which part of the rules (targeting, evaluators.<name>) and how. */
export interface RuleCostProblem {
  field: string;
  message: string;
}

/** What one rule costs after expansion; numbers saturate at CAP, never Infinity or NaN. */
interface Cost {
  bytes: number;
  operations: number;
  depth: number;
  /** Worst-case evaluation steps. */
  steps: number;
  /** Upper bound on the values of its result (1 for a scalar). */
  size: number;
  /** `var`s that may read a reduce's accumulator. */
  accumulatorReads: number;
}

const CAP = 1e200;
const add = (...terms: number[]) =>
  Math.min(
    CAP,
    terms.reduce((a, b) => a + b, 0),
  );
const times = (a: number, b: number) => (a === 0 || b === 0 ? 0 : Math.min(CAP, a * b));
const LEAF: Omit<Cost, "bytes"> = { operations: 0, depth: 0, steps: 0, size: 1, accumulatorReads: 0 };

class Refusal extends Error {
  readonly problem: RuleCostProblem;
  constructor(problem: RuleCostProblem) {
    super(problem.message);
    this.problem = problem;
  }
}

/**
 * The first bound a flag's targeting and evaluators exceed, or undefined. Refs to evaluators that
 * do not exist count as written (targetingErrors names them); a `$ref` cycle is refused here too,
 * as expansion would never end.
 */
export function ruleCostProblem(
  targeting: unknown,
  evaluators: Readonly<Record<string, unknown>> | undefined,
): RuleCostProblem | undefined {
  const parts: [string, unknown][] = [];
  if (targeting !== undefined) parts.push(["targeting", targeting]);
  for (const [name, rule] of Object.entries(evaluators ?? {})) parts.push([`evaluators.${name}`, rule]);
  for (const [field, rule] of parts) {
    const problem = writtenProblem(rule);
    if (problem !== undefined) return { field, message: problem };
  }
  const measure = new Measure(evaluators ?? {});
  let bytes = 0;
  try {
    for (const [field, rule] of parts) {
      const cost = measure.part(field, rule);
      bytes = add(bytes, cost.bytes);
      const problem = boundProblem(cost);
      if (problem !== undefined) return { field, message: problem };
      if (bytes > RULE_LIMITS.expandedBytes)
        return { field, message: expandedBytesMessage(bytes, "targeting and evaluators together") };
    }
  } catch (error) {
    if (error instanceof Refusal) return error.problem;
    throw error;
  }
  return undefined;
}

/**
 * The cost of each part of a flag's rules (targeting, evaluators.<name>) after expansion, for
 * tests and measurements; throws on what ruleCostProblem refuses without measuring.
 */
export function ruleCosts(
  targeting: unknown,
  evaluators: Readonly<Record<string, unknown>> | undefined,
): Record<string, Pick<Cost, "bytes" | "operations" | "depth" | "steps">> {
  const measure = new Measure(evaluators ?? {});
  const costs: Record<string, Pick<Cost, "bytes" | "operations" | "depth" | "steps">> = {};
  if (targeting !== undefined) costs["targeting"] = measure.part("targeting", targeting);
  for (const [name, rule] of Object.entries(evaluators ?? {}))
    costs[`evaluators.${name}`] = measure.part(`evaluators.${name}`, rule);
  return costs;
}

/**
 * Array and string sizes and nesting as written, walked level by level without recursion or
 * spreading (a hostile rule may be 10⁶ deep, or one array of 10⁶ items).
 */
function writtenProblem(rule: unknown): string | undefined {
  let level: unknown[] = [rule];
  for (let depth = 0; level.length > 0; depth++) {
    if (depth > RULE_LIMITS.depth) return `is nested deeper than ${RULE_LIMITS.depth} levels`;
    const next: unknown[] = [];
    for (const node of level) {
      if (typeof node === "string" && node.length > RULE_LIMITS.stringChars)
        return `holds a string of ${node.length} characters, more than the ${RULE_LIMITS.stringChars} allowed`;
      if (typeof node !== "object" || node === null) continue;
      const items = Array.isArray(node) ? (node as unknown[]) : Object.values(node);
      if (Array.isArray(node) && items.length > RULE_LIMITS.arrayItems)
        return `holds an array of ${items.length} items, more than the ${RULE_LIMITS.arrayItems} allowed`;
      for (const item of items) next.push(item);
    }
    level = next;
  }
  return undefined;
}

function expandedBytesMessage(bytes: number, what: string): string {
  return `${what} expand ($ref) to ${format(bytes)} bytes of JSON, more than the ${format(RULE_LIMITS.expandedBytes)} allowed`;
}

function boundProblem(cost: Cost): string | undefined {
  if (cost.bytes > RULE_LIMITS.expandedBytes) return expandedBytesMessage(cost.bytes, "its rules");
  if (cost.operations > RULE_LIMITS.operations)
    return `has ${format(cost.operations)} operations after $ref expansion, more than the ${format(RULE_LIMITS.operations)} allowed`;
  if (cost.depth > RULE_LIMITS.depth)
    return `is nested deeper than ${RULE_LIMITS.depth} levels after $ref expansion`;
  if (cost.steps > RULE_LIMITS.evaluationSteps)
    return `may take ${format(cost.steps)} evaluation steps (iterations multiply), more than the ${format(RULE_LIMITS.evaluationSteps)} allowed`;
  return undefined;
}

function format(n: number): string {
  return n >= 1e15 ? n.toExponential(1) : Math.round(n).toLocaleString("en-US");
}

/** The name a node refers to when it is exactly `{"$ref": name}` (what flagd-core replaces). */
function refName(node: object): string | undefined {
  const keys = Object.keys(node);
  const ref = (node as Record<string, unknown>)["$ref"];
  return keys.length === 1 && typeof ref === "string" ? ref : undefined;
}

/** Costs of rules, with each evaluator's cost kept per item size it is used under. */
class Measure {
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
    if (operator === "$ref")
      throw new Refusal({
        field: this.#field,
        message: `$ref ${JSON.stringify(args)} names no evaluator of the flag`,
      });
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
    if (SCALAR_OPERATORS.has(operator))
      return {
        steps: operator === "in" ? add(steps, costs[1]?.size ?? 0) : steps,
        size: 1,
        accumulatorReads,
      };
    if (CHOOSING_OPERATORS.has(operator))
      return { steps, size: Math.max(1, ...sizes(costs, "size")), accumulatorReads };
    if (operator === "merge")
      return {
        steps: add(steps, ...sizes(costs, "size")),
        size: add(...sizes(costs, "size")),
        accumulatorReads,
      };
    if (READING_OPERATORS.has(operator)) {
      const reads = operator === "var" && readsAccumulator(list[0]) ? 1 : 0;
      return {
        steps,
        size: Math.max(CONTEXT_LIMITS.values, item),
        accumulatorReads: add(accumulatorReads, reads),
      };
    }
    if (ITERATING_OPERATORS.has(operator)) return this.#iteration(operator, list, costs, steps);
    throw new Refusal({
      field: this.#field,
      message: `uses ${JSON.stringify(operator)}, which is not one of flagd's operators`,
    });
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
