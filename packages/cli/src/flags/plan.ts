// What `apply` would do to one flag, field by field (pure: unit-tested). Compared on the flag's
// definition as the API shows it, so a flag that `get -o yaml` printed and nobody edited is
// "unchanged" and is not written (no new resourceVersion, no audit event, no rollout).
import { canonicalJson, SPEC_FIELDS, type FlagCreate, type FlagView, type PreviewEntry } from "@svc/core";

export type PlanAction = "create" | "update" | "unchanged";

/** One changed field, by its dotted path; `before`/`after` absent: the field is not set there. */
export interface FieldChange {
  field: string;
  before?: unknown;
  after?: unknown;
}

export interface FlagPlan {
  cluster: string;
  namespace: string;
  name: string;
  action: PlanAction;
  changes: FieldChange[];
  /** The workloads the change touches, from the API's dry run (absent when unchanged). */
  preview?: PreviewEntry[];
}

type Definition = Partial<Record<(typeof SPEC_FIELDS)[number], unknown>>;

/**
 * The fields a write would set. An empty description is no description (the API stores it so);
 * `enabled` only when the file says it: a flag without it keeps its state (PUT's rule).
 */
export function definitionOf(flag: Definition, withEnabled: boolean): Record<string, unknown> {
  const definition: Record<string, unknown> = {};
  for (const field of SPEC_FIELDS) {
    const value = flag[field];
    if (value === undefined || (field === "description" && value === "")) continue;
    if (field === "enabled" && !withEnabled) continue;
    definition[field] = value;
  }
  return definition;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Leaves by dotted path: objects are walked, arrays and scalars are one value each. */
function leaves(value: unknown, path: string, into: Map<string, unknown>): Map<string, unknown> {
  if (isObject(value) && Object.keys(value).length > 0) {
    for (const [key, child] of Object.entries(value))
      leaves(child, path === "" ? key : `${path}.${key}`, into);
  } else if (path !== "") into.set(path, value);
  return into;
}

/** Every field that differs, in the order of `after`'s fields and then of the removed ones. */
export function fieldChanges(
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown>,
): FieldChange[] {
  const old = leaves(before ?? {}, "", new Map());
  const next = leaves(after, "", new Map());
  const changes: FieldChange[] = [];
  for (const [field, value] of next) {
    if (!old.has(field)) changes.push({ field, after: value });
    else if (canonicalJson(old.get(field)) !== canonicalJson(value))
      changes.push({ field, before: old.get(field), after: value });
  }
  for (const [field, value] of old) if (!next.has(field)) changes.push({ field, before: value });
  return changes;
}

/** The plan for one flag of the file, given the flag as stored (undefined: there is none). */
export function planFlag(desired: FlagCreate, current: FlagView | undefined): FlagPlan {
  const where = { cluster: desired.clusterId, namespace: desired.namespace, name: desired.name };
  const withEnabled = desired.enabled !== undefined;
  const after = definitionOf(desired, withEnabled);
  if (current === undefined) {
    // A new flag is enabled unless the file says otherwise: show the state it will have.
    const created = { ...definitionOf(desired, false), enabled: desired.enabled ?? true };
    return { ...where, action: "create", changes: fieldChanges(undefined, created) };
  }
  const changes = fieldChanges(definitionOf(current, withEnabled), after);
  return { ...where, action: changes.length === 0 ? "unchanged" : "update", changes };
}
