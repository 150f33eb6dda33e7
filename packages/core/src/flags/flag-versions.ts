/**
 * Whether a write made against an older resourceVersion of a flag is a real conflict. The
 * operator writes a flag's status (and its finalizer) after every change, which moves the
 * resourceVersion a client sent back; only a change of the spec by someone else may refuse the
 * write (DESIGN.md §4: no lost updates). The cache remembers which spec each recent version had.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../schema/canonical-json.ts";
import { touchesSpec } from "./flag-view.ts";
import { isBeingDeleted, type FeatureFlagResource } from "./flag-resource.ts";
import type { FeatureFlagSpec } from "./flag.ts";
import type { ManagedFieldsEntry } from "../kubernetes/object-meta.ts";

/**
 * One generation of a flag as the cache saw it: its spec, and the oldest and newest
 * resourceVersion seen with it. Generation only grows and moves with every spec change, so any
 * version between `from` and `to` had this spec, even one the cache did not see.
 */
export interface SpecEpoch {
  readonly uid: string | undefined;
  readonly generation: number | undefined;
  readonly spec: FeatureFlagSpec;
  readonly from: string;
  readonly to: string;
  /** Its managedFields (as cached): a writer since is one whose entry is not among them. */
  readonly managedFields?: readonly ManagedFieldsEntry[] | undefined;
}

/**
 * Set by svc's API on every flag it writes: its user and a digest of the spec written. It names
 * the writer to a racing writer that reads the flag before the winner's answer is back, and to
 * any API replica or restart; a later change by someone else no longer matches the digest.
 */
export const WRITTEN_BY_ANNOTATION = "svc.io/written-by";

const specDigest = (spec: FeatureFlagSpec): string =>
  createHash("sha256").update(canonicalJson(spec)).digest("hex").slice(0, 16);

/** The annotation's value for `username` writing `spec`. */
export function writtenBy(username: string, spec: FeatureFlagSpec): string {
  return `${username} ${specDigest(spec)}`;
}

/** svc's user who wrote the flag's current spec, when the annotation was written with it. */
export function annotatedWriter(flag: Pick<FeatureFlagResource, "metadata" | "spec">): string | undefined {
  const value = flag.metadata.annotations?.[WRITTEN_BY_ANNOTATION];
  const match = value === undefined ? null : /^(\S+) ([0-9a-f]{16})$/.exec(value);
  return match?.[2] === specDigest(flag.spec) ? match[1] : undefined;
}

/** A flag's recent generations, oldest first. */
export type FlagHistory = readonly SpecEpoch[];

/**
 * Generations remembered per flag. Status writes cost nothing (they widen the newest epoch), so
 * this bounds only how many spec changes a client may have missed and still be told which fields.
 */
export const FLAG_HISTORY_GENERATIONS = 8;

/** resourceVersions compare as integers (every etcd-backed API server's), else not at all. */
function versionNumber(version: string | undefined): bigint | undefined {
  return version !== undefined && /^[0-9]{1,30}$/.test(version) ? BigInt(version) : undefined;
}

function within(version: string, epoch: SpecEpoch): boolean {
  if (version === epoch.from || version === epoch.to) return true;
  const [v, from, to] = [versionNumber(version), versionNumber(epoch.from), versionNumber(epoch.to)];
  return v !== undefined && from !== undefined && to !== undefined && from <= v && v <= to;
}

/** The history after the cache accepted `flag` (a newer version of it, or its first). */
export function recordFlagVersion(history: FlagHistory, flag: FeatureFlagResource): FlagHistory {
  const { uid, generation, resourceVersion } = flag.metadata;
  if (resourceVersion === undefined) return history;
  const newest = history.at(-1);
  const sameIncarnation = newest === undefined || newest.uid === uid;
  const kept = sameIncarnation ? history : [];
  if (
    newest !== undefined &&
    sameIncarnation &&
    generation !== undefined &&
    newest.generation === generation
  ) {
    return [...kept.slice(0, -1), { ...newest, to: resourceVersion }];
  }
  const epoch: SpecEpoch = {
    uid,
    generation,
    spec: flag.spec,
    from: resourceVersion,
    to: resourceVersion,
    managedFields: flag.metadata.managedFields,
  };
  return [...kept, epoch].slice(-FLAG_HISTORY_GENERATIONS);
}

/** The generation a client read at `resourceVersion`, when the cache remembers it. */
export function specAt(history: FlagHistory, resourceVersion: string): SpecEpoch | undefined {
  return history.find((epoch) => within(resourceVersion, epoch));
}

/** The spec fields (REST field names) whose values differ, sorted. */
export function changedSpecFields(before: FeatureFlagSpec, after: FeatureFlagSpec): string[] {
  const b = before as unknown as Record<string, unknown>;
  const a = after as unknown as Record<string, unknown>;
  const keys = new Set([...Object.keys(b), ...Object.keys(a)]);
  // enabled absent means true (SPEC.md: new flags are enabled).
  const value = (spec: Record<string, unknown>, key: string) =>
    canonicalJson(key === "enabled" ? (spec[key] ?? true) : spec[key]);
  return [...keys].filter((key) => value(b, key) !== value(a, key)).sort();
}

const timeOf = (entry: ManagedFieldsEntry): string =>
  entry.time instanceof Date ? entry.time.toISOString() : (entry.time ?? "");

const sameEntry = (a: ManagedFieldsEntry, b: ManagedFieldsEntry) =>
  a.manager === b.manager && a.operation === b.operation && timeOf(a) === timeOf(b);

/**
 * Who changed the spec after the client's read: svc's user when svc's API wrote the current spec
 * (its annotation), else the field manager (kubectl-edit, a GitOps tool) whose spec entry is new
 * or newer since the read (managedFields times have whole seconds, so "newest" alone can tie).
 */
function specWriter(read: SpecEpoch, current: FeatureFlagResource): string | undefined {
  const annotated = annotatedWriter(current);
  if (annotated !== undefined) return annotated;
  const entries = (current.metadata.managedFields ?? []).filter(touchesSpec);
  const before = read.managedFields ?? [];
  const since = entries.filter((entry) => !before.some((old) => sameEntry(old, entry)));
  const candidates = since.length > 0 ? since : entries;
  let newest: ManagedFieldsEntry | undefined;
  for (const entry of candidates) if (newest === undefined || timeOf(entry) >= timeOf(newest)) newest = entry;
  return newest?.manager;
}

export type FlagWriteDecision =
  /** Write with this resourceVersion as the precondition. */
  | { kind: "write"; resourceVersion: string }
  /** Refuse with 409: `message` says what changed and, when known, who changed it. */
  | { kind: "conflict"; message: string; fields: string[]; by?: string };

/**
 * A write the client based on `clientVersion`, against the newest flag known (`current`): it goes
 * ahead on the current version when only status or metadata changed since (the operator's
 * status, finalizer, annotations); a spec change, a deletion or a version no longer remembered
 * is a conflict.
 */
export function decideFlagWrite(
  clientVersion: string,
  history: FlagHistory,
  current: FeatureFlagResource,
): FlagWriteDecision {
  const { namespace, name, resourceVersion, uid } = current.metadata;
  const currentVersion = resourceVersion ?? "";
  if (clientVersion === currentVersion) return { kind: "write", resourceVersion: clientVersion };
  const flag = `flag ${namespace}/${name}`;
  const retry = "read it again and retry";
  const read = specAt(history, clientVersion);
  if (read === undefined) {
    return {
      kind: "conflict",
      fields: [],
      message: `${flag} was changed after resourceVersion ${clientVersion} (a version no longer known here): ${retry}`,
    };
  }
  if (read.uid !== uid) {
    return {
      kind: "conflict",
      fields: [],
      message: `${flag} was deleted and created again since resourceVersion ${clientVersion}: ${retry}`,
    };
  }
  if (isBeingDeleted(current)) {
    return { kind: "conflict", fields: [], message: `${flag} is being deleted` };
  }
  const fields = changedSpecFields(read.spec, current.spec);
  if (fields.length === 0) return { kind: "write", resourceVersion: currentVersion };
  const by = specWriter(read, current);
  return {
    kind: "conflict",
    fields,
    ...(by === undefined ? {} : { by }),
    message: `${flag} was changed after resourceVersion ${clientVersion}${by === undefined ? "" : ` by ${by}`} (${fields.join(", ")}): ${retry}`,
  };
}
