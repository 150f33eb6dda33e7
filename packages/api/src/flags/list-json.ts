import { flagView, type FeatureFlagResource } from "@svc/core";

/**
 * The JSON of a cache's flag list, made once per snapshot. An informer cache hands out the same
 * sorted array until one of its objects changes, so a list read again and again (dashboards
 * polling one namespace) is served from a string instead of being rebuilt and serialized.
 */
const bySnapshot = new WeakMap<readonly FeatureFlagResource[], string>();

/** The flags as comma-separated JSON objects (no brackets), so lists of several clusters join. */
export function flagsJson(snapshot: readonly FeatureFlagResource[], clusterId: string): string {
  let json = bySnapshot.get(snapshot);
  if (json === undefined) {
    json = snapshot.map((flag) => JSON.stringify(flagView(flag, clusterId))).join(",");
    bySnapshot.set(snapshot, json);
  }
  return json;
}

export function jsonArray(parts: readonly string[]): string {
  return `[${parts.filter((part) => part !== "").join(",")}]`;
}
