import { describe, expect, it } from "vitest";
import {
  clusterResyncMs,
  goDurationMs,
  validateClusterConnectionSpec,
  validateClusterRegistration,
} from "../../src/index.ts";
import {
  invalidClusterCases,
  invalidClusterIds,
  validClusterSpec,
  validClusterSpecs,
} from "../../../../test/support/cluster-cases.ts";

function fields(spec: unknown): string[] {
  const result = validateClusterConnectionSpec(spec);
  return result.ok ? [] : result.errors.map((e) => e.field);
}

describe("validateClusterConnectionSpec", () => {
  it.each(validClusterSpecs.map((spec, i) => [i, spec] as const))("accepts valid spec %i", (_i, spec) => {
    expect(fields(spec)).toEqual([]);
  });

  it.each(invalidClusterCases.map((c) => [c.why, c] as const))("refuses %s, naming the field", (_why, c) => {
    expect(fields(c.spec)).toEqual([c.field]);
  });

  it("refuses fields that are not in the spec", () => {
    expect(fields({ ...validClusterSpec, token: "secret" })).toEqual(["token"]);
  });
});

describe("cluster ids", () => {
  it.each(invalidClusterIds)("refuses the id %j", (id) => {
    const result = validateClusterRegistration({ id, displayName: "x", apiServer: "https://a", token: "t" });
    expect(result.ok ? [] : result.errors.map((e) => e.field)).toEqual(["id"]);
  });
});

describe("clusterResyncMs", () => {
  it("is the connection's resyncPeriod, 300 s by default, and never under a second", () => {
    expect(clusterResyncMs("2m")).toBe(120_000);
    expect(clusterResyncMs(undefined)).toBe(300_000);
    expect(clusterResyncMs("0s")).toBe(1000);
    expect(clusterResyncMs("1ms")).toBe(1000);
    expect(clusterResyncMs("soon")).toBe(300_000);
  });
});

describe("goDurationMs", () => {
  it("reads every Go duration the schema accepts", () => {
    expect(goDurationMs("300s")).toBe(300_000);
    expect(goDurationMs("1h30m")).toBe(5_400_000);
    expect(goDurationMs("2.5s")).toBe(2500);
    expect(goDurationMs("500ms")).toBe(500);
    expect(goDurationMs("1500us")).toBe(1.5);
    expect(goDurationMs("soon")).toBeUndefined();
    expect(goDurationMs("5s later")).toBeUndefined();
  });
});
