// The sidecar's model: a FeatureFlag resource seen as the sidecar flag object of SPEC.md
// ({name, type, value, disabled}), and the in-memory state that turns watch events into the
// changes the stream and the precomputed responses follow.
import type { FeatureFlagSpec, FlagType } from "@svc/core";
import { FLAG_TYPES, isEnabled } from "@svc/core/basics";
import type { SidecarFlag } from "./sidecar-flag.ts";
import {
  renderFlag,
  renderFlagList,
  renderOfrepBulk,
  type PreparedResponse,
  type RenderedFlag,
} from "./responses.ts";

/** The parts of a FeatureFlag object the sidecar reads (the rest of the resource is ignored). */
export interface FeatureFlagObject {
  metadata?: { name?: string; resourceVersion?: string };
  spec?: Partial<Pick<FeatureFlagSpec, "type" | "defaultValue" | "enabled">>;
}

/**
 * The sidecar flag of a FeatureFlag object, or undefined when the object lacks what a flag
 * needs. The CRD schema makes that impossible for stored objects; the check keeps a malformed
 * event from becoming a flag with an undefined value.
 */
export function toSidecarFlag(object: FeatureFlagObject): SidecarFlag | undefined {
  const name = object.metadata?.name;
  const spec = object.spec;
  if (name === undefined || spec === undefined) return undefined;
  const { type, defaultValue } = spec;
  if (typeof defaultValue !== "string" || !(FLAG_TYPES as readonly unknown[]).includes(type))
    return undefined;
  return { name, type: type as FlagType, value: defaultValue, disabled: !isEnabled(spec) };
}

export function sameFlag(a: SidecarFlag, b: SidecarFlag): boolean {
  return a.name === b.name && a.type === b.type && a.value === b.value && a.disabled === b.disabled;
}

/** One change of the state, numbered by the state's revision (1, 2, 3, ... in order). */
export type FlagChange =
  | { kind: "update"; revision: number; flag: SidecarFlag }
  | { kind: "delete"; revision: number; name: string };

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED";

/** A flag with every response about it rendered once, when it changed. */
export interface FlagEntry extends RenderedFlag {
  flag: SidecarFlag;
}

/**
 * The flags of one namespace. Every mutation returns the changes it made (none for a no-op, so
 * a resync or a status-only update emits nothing); readers get precomputed responses.
 */
export class FlagState {
  #entries = new Map<string, FlagEntry>();
  #revision = 0;
  // Whole-namespace responses cost O(flags) to render: built on the first read after a change,
  // so a burst of changes (a relist of thousands of flags) renders them once, not per change.
  #sorted: FlagEntry[] | undefined;
  #list: PreparedResponse | undefined;
  #ofrepBulk: { response: PreparedResponse; etag: string } | undefined;

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
    this.#sorted ??= [...this.#entries.values()].sort((a, b) =>
      a.flag.name < b.flag.name ? -1 : a.flag.name > b.flag.name ? 1 : 0,
    );
    return this.#sorted;
  }

  /** GET /flags */
  listResponse(): PreparedResponse {
    this.#list ??= renderFlagList(this.entries());
    return this.#list;
  }

  /** POST /ofrep/v1/evaluate/flags, and its ETag. */
  ofrepBulk(): { response: PreparedResponse; etag: string } {
    this.#ofrepBulk ??= renderOfrepBulk(this.entries());
    return this.#ofrepBulk;
  }

  /** Applies one watch event. */
  apply(type: WatchEventType, object: FeatureFlagObject): FlagChange[] {
    if (type === "DELETED") {
      const name = object.metadata?.name;
      return name === undefined ? [] : this.#delete(name);
    }
    const flag = toSidecarFlag(object);
    if (flag) return this.#upsert(flag);
    // An object that is not a usable flag any more must not keep serving its old value.
    const name = object.metadata?.name;
    return name === undefined ? [] : this.#delete(name);
  }

  /** Makes the state equal to a full list (a relist): the changes are the difference. */
  replace(objects: readonly FeatureFlagObject[]): FlagChange[] {
    const flags = new Map<string, SidecarFlag>();
    for (const object of objects) {
      const flag = toSidecarFlag(object);
      if (flag) flags.set(flag.name, flag);
    }
    const changes: FlagChange[] = [];
    for (const name of [...this.#entries.keys()]) {
      if (!flags.has(name)) changes.push(...this.#delete(name));
    }
    for (const flag of flags.values()) changes.push(...this.#upsert(flag));
    return changes;
  }

  #upsert(flag: SidecarFlag): FlagChange[] {
    const current = this.#entries.get(flag.name);
    if (current && sameFlag(current.flag, flag)) return [];
    this.#entries.set(flag.name, { flag, ...renderFlag(flag) });
    this.#invalidate();
    return [{ kind: "update", revision: ++this.#revision, flag }];
  }

  #delete(name: string): FlagChange[] {
    if (!this.#entries.delete(name)) return [];
    this.#invalidate();
    return [{ kind: "delete", revision: ++this.#revision, name }];
  }

  #invalidate(): void {
    this.#sorted = undefined;
    this.#list = undefined;
    this.#ofrepBulk = undefined;
  }
}
