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
 * No I/O, and nothing imported but its measure (targeting-cost-measure.ts) and the context's
 * bounds: the sidecar imports it (`@svc/core/targeting-cost`) and stays small.
 */
import { Measure, Refusal, type Cost, type RuleCostProblem } from "./targeting-cost-measure.ts";

export type { RuleCostProblem } from "./targeting-cost-measure.ts";

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
      bytes += cost.bytes;
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
