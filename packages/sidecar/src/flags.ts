// The sidecar's model: a FeatureFlag resource seen as the sidecar flag object of SPEC.md
// ({name, type, value, disabled}), and the in-memory state that turns watch events into the
// changes the stream and the precomputed responses follow.
import type { FeatureFlagSpec, FlagType } from "@svc/core";
import { isEnabled } from "@svc/core/flags/values";
import { FLAG_TYPES } from "@svc/core/vocabulary";
import { heldSpec, isCanaryPod, readCanary } from "@svc/core/rollouts/rollout-canary";
import { ruleCostProblem } from "@svc/core/targeting/targeting-cost";
import type { EvaluationContext } from "@openfeature/core";
import type { FlagRules, SidecarFlag } from "./sidecar-flag.ts";
import { createHash } from "node:crypto";
import {
  CompiledRules,
  ofrepEvaluation,
  renderFlag,
  renderFlagList,
  renderOfrepBulk,
  type PreparedResponse,
  type RenderedFlag,
} from "./responses.ts";

/** The parts of a FeatureFlag object the sidecar reads (the rest of the resource is ignored). */
export interface FeatureFlagObject {
  metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> };
  spec?: Partial<Pick<FeatureFlagSpec, "type" | "defaultValue" | "enabled" | "key" | keyof FlagRules>>;
}

const RULE_FIELDS = ["variants", "defaultVariant", "targeting", "evaluators", "metadata"] as const;

/**
 * The sidecar flag of a FeatureFlag object, or undefined when the object lacks what a flag
 * needs. The CRD schema makes that impossible for stored objects; the check keeps a malformed
 * event from becoming a flag with an undefined value. While a rollout's canary step names
 * workloads, a pod of none of them (or whose labels are unknown) serves the flag as it was.
 */
export function toSidecarFlag(
  object: FeatureFlagObject,
  podLabels?: Readonly<Record<string, string>>,
): SidecarFlag | undefined {
  const name = object.metadata?.name;
  const canary = readCanary(object.metadata?.annotations);
  const spec =
    canary === undefined ||
    object.spec === undefined ||
    (podLabels !== undefined && isCanaryPod(canary, podLabels))
      ? object.spec
      : heldSpec(object.spec, canary);
  if (name === undefined || spec === undefined) return undefined;
  const { type, defaultValue } = spec;
  if (typeof defaultValue !== "string" || !(FLAG_TYPES as readonly unknown[]).includes(type))
    return undefined;
  const flag: SidecarFlag = {
    name,
    key: spec.key ?? name,
    type: type as FlagType,
    value: defaultValue,
    disabled: !isEnabled(spec),
  };
  for (const field of RULE_FIELDS) {
    if (spec[field] !== undefined) Object.assign(flag, { [field]: spec[field] });
  }
  return flag;
}

/** Whether two flags serve and evaluate alike (a change of a rule alone is a change). */
export function sameFlag(a: SidecarFlag, b: SidecarFlag): boolean {
  return (
    a.refused === b.refused &&
    a.name === b.name &&
    a.key === b.key &&
    a.type === b.type &&
    a.value === b.value &&
    a.disabled === b.disabled &&
    RULE_FIELDS.every((field) => JSON.stringify(a[field]) === JSON.stringify(b[field]))
  );
}

/**
 * Targeted flags kept compiled (~2.6 KB of heap each). Past this many in one namespace a bulk
 * evaluation compiles the rest on every request (~0.5 ms each on Bun, mostly flagd-core hashing
 * the flag), so the bound is above the 5,000 flags a namespace is sized for (docs/sidecar.md,
 * "Memory: what is compiled when"): it caps memory without slowing the namespaces svc is built for.
 */
export const COMPILED_RULES = 10_000;

/** Told when a definition's rules are refused: the reason, and whether a good one is kept. */
export type RefusedRules = (name: string, reason: string, keptLastGood: boolean) => void;

/** One change of the state, numbered by the state's revision (1, 2, 3, ... in order). */
export type FlagChange =
  | { kind: "update"; revision: number; flag: SidecarFlag }
  | { kind: "delete"; revision: number; name: string };

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED";

/** A flag with every response about it rendered once, when it changed. */
export type FlagEntry = RenderedFlag & { flag: SidecarFlag };

/**
 * The flags of one namespace. Every mutation returns the changes it made (none for a no-op, so
 * a resync or a status-only update emits nothing); readers get precomputed responses.
 */
export class FlagState {
  #entries = new Map<string, FlagEntry>();
  readonly #rules: CompiledRules;
  #revision = 0;
  // Whole-namespace responses cost O(flags) to render: built on the first read after a change,
  // so a burst of changes (a relist of thousands of flags) renders them once, not per change.
  #sorted: FlagEntry[] | undefined;
  #list: PreparedResponse | undefined;
  #byKey: Map<string, FlagEntry> | undefined;
  #byKeySorted: FlagEntry[] | undefined;
  #anyTargeted = false;
  // The bulk answer when no flag is targeted: the same for every context.
  #staticBulk: { response: PreparedResponse; etag: string } | undefined;
  // XOR of every entry's definitionDigest: kept per change in O(1), equal for equal flag sets.
  // The terms are recomputed when a flag goes rather than kept (a Buffer per flag is memory).
  #configDigest = Buffer.alloc(32);

  readonly #podLabels: Readonly<Record<string, string>> | undefined;
  readonly #onRefused: RefusedRules | undefined;
  // The reason last reported per flag: a status write or a relist reports no refusal again.
  readonly #refused = new Map<string, string>();

  /**
   * `compiledRules`: how many targeted flags stay compiled (CompiledRules in responses.ts);
   * `podLabels`: the labels of the sidecar's pod, which tell whether a rollout's canary step
   * includes it.
   */
  constructor(
    compiledRules = COMPILED_RULES,
    podLabels?: Readonly<Record<string, string>>,
    onRefused?: RefusedRules,
  ) {
    this.#rules = new CompiledRules(compiledRules);
    this.#podLabels = podLabels;
    this.#onRefused = onRefused;
  }

  get revision(): number {
    return this.#revision;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(name: string): FlagEntry | undefined {
    return this.#entries.get(name);
  }

  /** All entries in name order (stable for lists and ETags). */
  entries(): readonly FlagEntry[] {
    this.#sorted ??= [...this.#entries.values()].sort((a, b) => compare(a.flag.name, b.flag.name));
    return this.#sorted;
  }

  /** GET /flags */
  listResponse(): PreparedResponse {
    this.#list ??= renderFlagList(this.entries());
    return this.#list;
  }

  /**
   * The entry OFREP serves under a flagd key (spec.key, else the name). Two FeatureFlags with
   * the same key: the one whose name sorts first (docs/sidecar.md, "OFREP mapping").
   */
  byKey(key: string): FlagEntry | undefined {
    this.#byKey ??= this.#indexByKey();
    return this.#byKey.get(key);
  }

  /** POST /ofrep/v1/evaluate/flags for a context, and its ETag. */
  ofrepBulk(context: EvaluationContext): { response: PreparedResponse; etag: string } {
    this.#byKey ??= this.#indexByKey();
    this.#byKeySorted ??= [...this.#byKey.values()].sort((a, b) => compare(a.flag.key, b.flag.key));
    if (this.#anyTargeted) {
      return renderOfrepBulk(this.#byKeySorted.map((entry) => ofrepEvaluation(entry, context, true).text));
    }
    this.#staticBulk ??= renderOfrepBulk(this.#byKeySorted.map((entry) => ofrepEvaluation(entry, {}).text));
    return this.#staticBulk;
  }

  /**
   * A tag of everything OFREP evaluates (every flag's definition): sent with each OFREP
   * change event, equal across replicas with equal flags.
   */
  configEtag(): string {
    return `"${this.#configDigest.toString("base64url").slice(0, 27)}"`;
  }

  #indexByKey(): Map<string, FlagEntry> {
    const index = new Map<string, FlagEntry>();
    let anyTargeted = false;
    for (const entry of this.entries()) {
      if (!index.has(entry.flag.key)) index.set(entry.flag.key, entry);
      if (entry.ofrepStatic === undefined) anyTargeted = true;
    }
    this.#anyTargeted = anyTargeted;
    return index;
  }

  /** Applies one watch event. */
  apply(type: WatchEventType, object: FeatureFlagObject): FlagChange[] {
    if (type === "DELETED") {
      const name = object.metadata?.name;
      return name === undefined ? [] : this.#delete(name);
    }
    const flag = toSidecarFlag(object, this.#podLabels);
    if (flag) return this.#upsert(this.#admitted(flag));
    // An object that is not a usable flag any more must not keep serving its old value.
    const name = object.metadata?.name;
    return name === undefined ? [] : this.#delete(name);
  }

  /** Makes the state equal to a full list (a relist): the changes are the difference. */
  replace(objects: readonly FeatureFlagObject[]): FlagChange[] {
    const flags = new Map<string, SidecarFlag>();
    for (const object of objects) {
      const flag = toSidecarFlag(object, this.#podLabels);
      if (flag) flags.set(flag.name, this.#admitted(flag));
    }
    const changes: FlagChange[] = [];
    for (const name of [...this.#entries.keys()]) {
      if (!flags.has(name)) changes.push(...this.#delete(name));
    }
    for (const flag of flags.values()) changes.push(...this.#upsert(flag));
    return changes;
  }

  /**
   * The flag to serve for a definition read from the cluster: itself, or — when its rules exceed
   * a bound of what a rule may cost (applied with kubectl; the API refuses them) — the last good
   * definition served under its name, else the flag without its rules, answering OFREP with the
   * reason. An over-bound rule is never compiled nor evaluated here.
   */
  #admitted(flag: SidecarFlag): SidecarFlag {
    const problem = ruleCostProblem(flag.targeting, flag.evaluators);
    if (problem === undefined) {
      this.#refused.delete(flag.name);
      return flag;
    }
    const current = this.#entries.get(flag.name)?.flag;
    const kept = current !== undefined && current.refused === undefined;
    const refused = `${problem.field} ${problem.message}; the flag's rules are not evaluated`;
    if (this.#refused.get(flag.name) !== refused) {
      this.#refused.set(flag.name, refused);
      this.#onRefused?.(flag.name, refused, kept);
    }
    if (kept) return current;
    const { name, key, type, value, disabled } = flag;
    return { name, key, type, value, disabled, refused };
  }

  #upsert(flag: SidecarFlag): FlagChange[] {
    const current = this.#entries.get(flag.name);
    if (current && sameFlag(current.flag, flag)) return [];
    if (current) xorInto(this.#configDigest, definitionDigest(current.flag));
    xorInto(this.#configDigest, definitionDigest(flag));
    if (current) this.#rules.forget(current.flag);
    this.#entries.set(flag.name, { flag, ...renderFlag(flag, this.#rules) });
    this.#invalidate();
    return [{ kind: "update", revision: ++this.#revision, flag }];
  }

  #delete(name: string): FlagChange[] {
    this.#refused.delete(name);
    const current = this.#entries.get(name);
    if (!current) return [];
    this.#entries.delete(name);
    this.#rules.forget(current.flag);
    xorInto(this.#configDigest, definitionDigest(current.flag));
    this.#invalidate();
    return [{ kind: "delete", revision: ++this.#revision, name }];
  }

  #invalidate(): void {
    this.#sorted = undefined;
    this.#list = undefined;
    this.#byKey = undefined;
    this.#byKeySorted = undefined;
    this.#staticBulk = undefined;
  }
}

/** SHA-256 of a flag's definition, a term of the state's configEtag. */
function definitionDigest(flag: SidecarFlag): Buffer {
  return createHash("sha256").update(JSON.stringify(flag)).digest();
}

function xorInto(target: Buffer, term: Buffer): void {
  for (let i = 0; i < target.length; i++) target[i] = (target[i] ?? 0) ^ (term[i] ?? 0);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
