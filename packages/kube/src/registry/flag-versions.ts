// The recent generations of each cached flag (core's flag-versions.ts decides with them whether
// a write against an older resourceVersion is a real conflict). Fed by the flag cache's events,
// so the versions a client can have read (lists, watches, svc's own writes) are all recorded.
import { recordFlagVersion, type FeatureFlagResource, type FlagHistory } from "@svc/core";
import type { InformerCache } from "./informer-cache.ts";

export interface FlagVersions {
  /** The generations remembered of one flag, oldest first (empty when none). */
  of(namespace: string, name: string): FlagHistory;
}

const NONE: FlagHistory = Object.freeze([]);

export class FlagVersionStore implements FlagVersions {
  readonly #histories = new Map<string, FlagHistory>();

  constructor(flags: InformerCache<FeatureFlagResource>) {
    flags.onEvent(({ type, object }) => {
      const key = keyOf(object);
      if (type === "delete") this.#histories.delete(key);
      else this.#histories.set(key, recordFlagVersion(this.#histories.get(key) ?? NONE, object));
    });
  }

  of(namespace: string, name: string): FlagHistory {
    return this.#histories.get(`${namespace}/${name}`) ?? NONE;
  }
}

const keyOf = (flag: FeatureFlagResource) => `${flag.metadata.namespace}/${flag.metadata.name}`;
