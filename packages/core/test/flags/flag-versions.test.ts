import { describe, expect, it } from "vitest";
import {
  changedSpecFields,
  decideFlagWrite,
  FLAG_HISTORY_GENERATIONS,
  recordFlagVersion,
  writtenBy,
  WRITTEN_BY_ANNOTATION,
  specAt,
  type FeatureFlagResource,
  type FeatureFlagSpec,
  type FlagHistory,
} from "../../src/index.ts";

const baseSpec: FeatureFlagSpec = {
  type: "boolean",
  defaultValue: "false",
  delivery: { envVar: { selector: { matchLabels: { app: "web" } } } },
};

/** A version of flag shop/banner as the cache would hold it. */
function version(
  resourceVersion: string,
  generation: number,
  spec: FeatureFlagSpec = baseSpec,
  metadata: Partial<FeatureFlagResource["metadata"]> = {},
): FeatureFlagResource {
  return {
    metadata: { name: "banner", namespace: "shop", uid: "u1", resourceVersion, generation, ...metadata },
    spec,
    status: { phase: "Delivered" },
  };
}

const replay = (...versions: FeatureFlagResource[]): FlagHistory =>
  versions.reduce<FlagHistory>((history, flag) => recordFlagVersion(history, flag), []);

describe("recordFlagVersion and specAt", () => {
  it("keeps one entry per generation: status writes widen it, a spec change starts the next", () => {
    const edited = { ...baseSpec, defaultValue: "true" };
    const history = replay(version("10", 1), version("11", 1), version("14", 1), version("20", 2, edited));
    expect(history.map(({ generation, from, to }) => ({ generation, from, to }))).toEqual([
      { generation: 1, from: "10", to: "14" },
      { generation: 2, from: "20", to: "20" },
    ]);
    // 12 was never seen (a watch gap), but lies within generation 1: generation only grows.
    expect(specAt(history, "12")?.spec).toBe(baseSpec);
    expect(specAt(history, "20")?.spec).toBe(edited);
    expect(specAt(history, "16")).toBeUndefined();
    expect(specAt(history, "9")).toBeUndefined();
  });

  it("forgets the oldest generations past the bound, and everything of an earlier incarnation", () => {
    const many = Array.from({ length: FLAG_HISTORY_GENERATIONS + 2 }, (_, i) =>
      version(String(100 + i), i + 1, { ...baseSpec, description: `v${i}` }),
    );
    const history = replay(...many);
    expect(history).toHaveLength(FLAG_HISTORY_GENERATIONS);
    expect(specAt(history, "100")).toBeUndefined();
    expect(specAt(history, "109")?.spec.description).toBe("v9");
    const recreated = recordFlagVersion(history, version("200", 1, baseSpec, { uid: "u2" }));
    expect(recreated).toHaveLength(1);
    expect(specAt(recreated, "109")).toBeUndefined();
  });
});

describe("changedSpecFields", () => {
  it("names each top-level field that differs, whatever the key order; absent enabled is enabled", () => {
    const before: FeatureFlagSpec = { ...baseSpec, enabled: true, variants: { on: "true", off: "false" } };
    const after: FeatureFlagSpec = {
      variants: { off: "false", on: "true" },
      ...baseSpec,
      description: "new",
    };
    expect(changedSpecFields(before, after)).toEqual(["description"]);
    expect(changedSpecFields(baseSpec, { ...baseSpec, enabled: false, defaultValue: "true" })).toEqual([
      "defaultValue",
      "enabled",
    ]);
  });
});

describe("decideFlagWrite", () => {
  it("writes as read when the client holds the newest version", () => {
    expect(decideFlagWrite("10", [], version("10", 1))).toEqual({ kind: "write", resourceVersion: "10" });
  });

  it("writes on the newest version when only the status, finalizers or annotations changed since", () => {
    const read = version("10", 1);
    const statusWritten = version("13", 1, baseSpec, {
      finalizers: ["svc.io/delivery"],
      annotations: { "svc.io/observed": "x" },
    });
    const history = replay(read, version("11", 1), statusWritten);
    expect(decideFlagWrite("10", history, statusWritten)).toEqual({ kind: "write", resourceVersion: "13" });
  });

  it("refuses a spec change by someone else, naming the fields and the writer", () => {
    const read = version("10", 1);
    const edited = version(
      "12",
      2,
      { ...baseSpec, defaultValue: "true", description: "x" },
      {
        managedFields: [
          { manager: "svc", operation: "Update", time: "2026-01-01T00:00:00Z", fieldsV1: { "f:spec": {} } },
          {
            manager: "kubectl-edit",
            operation: "Update",
            time: "2026-01-02T00:00:00Z",
            fieldsV1: { "f:spec": {} },
          },
        ],
      },
    );
    const decision = decideFlagWrite("10", replay(read, edited), edited);
    expect(decision).toEqual({
      kind: "conflict",
      fields: ["defaultValue", "description"],
      by: "kubectl-edit",
      message:
        "flag shop/banner was changed after resourceVersion 10 by kubectl-edit (defaultValue, description): read it again and retry",
    });
    // Within the same second as svc's own entry: the manager whose entry is new since the read.
    const svcEntry = {
      manager: "svc",
      operation: "Update",
      time: "2026-01-01T00:00:00Z",
      fieldsV1: { "f:spec": {} },
    };
    const sameSecond = { ...svcEntry, manager: "argocd-controller" };
    const readWithSvc = version("10", 1, baseSpec, { managedFields: [svcEntry] });
    const tied = version(
      "12",
      2,
      { ...baseSpec, description: "y" },
      { managedFields: [sameSecond, svcEntry] },
    );
    expect(decideFlagWrite("10", replay(readWithSvc, tied), tied)).toMatchObject({ by: "argocd-controller" });
    // svc's own user, signed on the spec svc's API wrote, rather than its field manager: also
    // before the winner's answer is back (the loser of a race reads the flag first).
    const signed = (spec: FeatureFlagSpec, by: string) => ({
      ...edited,
      metadata: { ...edited.metadata, annotations: { [WRITTEN_BY_ANNOTATION]: writtenBy(by, spec) } },
    });
    const byEd = signed(edited.spec, "ed");
    expect(decideFlagWrite("10", replay(read, byEd), byEd)).toMatchObject({ kind: "conflict", by: "ed" });
    // A signature of an earlier spec (kubectl edited it since) names the field manager instead.
    const stale = signed(baseSpec, "ed");
    expect(decideFlagWrite("10", replay(read, stale), stale)).toMatchObject({ by: "kubectl-edit" });
  });

  it("refuses a version it does not remember, a re-created flag and one being deleted", () => {
    const current = version("30", 3);
    expect(decideFlagWrite("5", replay(current), current)).toMatchObject({
      kind: "conflict",
      message: expect.stringContaining("no longer known") as unknown,
    });
    const history = replay(version("10", 1), version("30", 1, baseSpec, { uid: "u2" }));
    expect(specAt(history, "10")).toBeUndefined();
    const oldIncarnation = [{ uid: "u1", generation: 1, spec: baseSpec, from: "10", to: "10" }];
    expect(decideFlagWrite("10", oldIncarnation, version("30", 1, baseSpec, { uid: "u2" }))).toMatchObject({
      kind: "conflict",
      message: expect.stringContaining("deleted and created again") as unknown,
    });
    const deleting = version("31", 2, baseSpec, { deletionTimestamp: "2026-01-01T00:00:00Z" });
    expect(decideFlagWrite("10", replay(version("10", 1), deleting), deleting)).toMatchObject({
      kind: "conflict",
      message: "flag shop/banner is being deleted",
    });
  });
});
