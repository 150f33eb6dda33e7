// The flag cache's history of generations (core's flag-versions.ts decides with it): fed by every
// object the cache accepts, whatever its source (list, watch, svc's own write), and by nothing else.
import type { FeatureFlagResource, FeatureFlagSpec } from "@svc/core";
import { describe, expect, it } from "vitest";
import { FlagVersionStore } from "../src/registry/flag-versions.ts";
import { ObjectStore } from "../src/registry/informer-cache.ts";

const spec = (defaultValue: string): FeatureFlagSpec => ({
  type: "string",
  defaultValue,
  delivery: { envVar: { selector: { matchLabels: { app: "web" } } } },
});

function flag(
  resourceVersion: string,
  generation: number,
  defaultValue: string,
  uid = "u1",
): FeatureFlagResource {
  return {
    metadata: { name: "banner", namespace: "shop", uid, resourceVersion, generation },
    spec: spec(defaultValue),
  };
}

function caches() {
  const flags = new ObjectStore<FeatureFlagResource>((error) => {
    throw error;
  });
  return { flags, versions: new FlagVersionStore(flags) };
}

const summary = (versions: FlagVersionStore) =>
  versions.of("shop", "banner").map(({ generation, from, to, spec }) => ({
    generation,
    from,
    to,
    value: spec.defaultValue,
  }));

describe("FlagVersionStore", () => {
  it("records each version the cache accepts, and not a stale one it ignores", () => {
    const { flags, versions } = caches();
    flags.upsert(flag("10", 1, "a"));
    flags.upsert(flag("12", 1, "a")); // the operator's status write
    flags.upsert(flag("11", 1, "stale")); // an older watch event: ignored by the cache
    flags.replace([flag("15", 2, "b")], () => true); // a relist
    expect(summary(versions)).toEqual([
      { generation: 1, from: "10", to: "12", value: "a" },
      { generation: 2, from: "15", to: "15", value: "b" },
    ]);
    expect(versions.of("shop", "other")).toEqual([]);
  });

  it("forgets a deleted flag, so a re-created one starts afresh", () => {
    const { flags, versions } = caches();
    flags.upsert(flag("10", 1, "a"));
    flags.applyDeleted(flag("10", 1, "a"));
    expect(versions.of("shop", "banner")).toEqual([]);
    flags.upsert(flag("20", 1, "new", "u2"));
    expect(summary(versions)).toEqual([{ generation: 1, from: "20", to: "20", value: "new" }]);
  });
});
