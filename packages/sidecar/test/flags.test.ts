import { describe, expect, it } from "vitest";
import type { EvaluationContext } from "@openfeature/core";
import { CANARY_ANNOTATION, canaryAnnotationValue } from "@svc/core/rollouts/rollout-canary";
import { FlagState, toSidecarFlag, type FeatureFlagObject } from "../src/flags.ts";
import { parsePodLabels } from "../src/pod-labels.ts";
import { ofrepSingle } from "../src/responses.ts";
import { nestedMap, refChain } from "../../../test/support/hostile-targeting.ts";

function featureFlag(
  name: string,
  spec: FeatureFlagObject["spec"],
  resourceVersion = "1",
): FeatureFlagObject {
  return { metadata: { name, resourceVersion }, spec };
}

const checkout = featureFlag("new-checkout", { type: "boolean", defaultValue: "true" });

describe("toSidecarFlag", () => {
  it("maps name, type, defaultValue and enabled (absent means enabled) to the sidecar object", () => {
    expect(toSidecarFlag(checkout)).toEqual({
      name: "new-checkout",
      key: "new-checkout",
      type: "boolean",
      value: "true",
      disabled: false,
    });
    expect(
      toSidecarFlag(featureFlag("limit", { type: "integer", defaultValue: "5", enabled: false })),
    ).toEqual({
      name: "limit",
      key: "limit",
      type: "integer",
      value: "5",
      disabled: true,
    });
  });

  it("refuses objects that are no usable flag", () => {
    expect(toSidecarFlag({ metadata: { name: "x" } })).toBeUndefined();
    expect(toSidecarFlag(featureFlag("x", { type: "float" as "json", defaultValue: "1" }))).toBeUndefined();
    expect(toSidecarFlag(featureFlag("x", { type: "string" }))).toBeUndefined();
    expect(toSidecarFlag({ spec: { type: "string", defaultValue: "" } })).toBeUndefined();
  });
});

describe("a rollout's canary step (workloadPercent)", () => {
  // The flag holds the change (enabled, "true"); before it, it was disabled with "false".
  const changed: FeatureFlagObject = {
    metadata: {
      name: "new-checkout",
      resourceVersion: "7",
      annotations: {
        [CANARY_ANNOTATION]: canaryAnnotationValue({
          plan: "checkout-on",
          workloads: [{ kind: "Deployment", name: "api", matchLabels: { app: "api" } }],
          held: { set: { defaultValue: "false", enabled: false }, remove: [] },
        }),
      },
    },
    spec: { type: "boolean", defaultValue: "true" },
  };

  it("serves the change in a pod of a canary workload and the flag as it was elsewhere", () => {
    expect(toSidecarFlag(changed, { app: "api", "pod-template-hash": "5d8" })).toMatchObject({
      value: "true",
      disabled: false,
    });
    expect(toSidecarFlag(changed, { app: "web" })).toMatchObject({ value: "false", disabled: true });
    // Labels unknown (no downward API file): held back, never served early.
    expect(toSidecarFlag(changed)).toMatchObject({ value: "false", disabled: true });
  });

  it("moves a held pod to the change, as one stream event, when the wave reaches every workload", () => {
    const state = new FlagState(undefined, { app: "web" });
    state.apply("ADDED", changed);
    expect(state.get("new-checkout")?.flag).toMatchObject({ value: "false", disabled: true });
    const widened = { metadata: { name: "new-checkout", resourceVersion: "8" }, spec: changed.spec };
    expect(state.apply("MODIFIED", widened)).toMatchObject([
      { kind: "update", flag: { value: "true", disabled: false } },
    ]);
  });

  it("reads its pod's labels from the downward API file", () => {
    expect(parsePodLabels('app="api"\npod-template-hash="5d8b9c"\nsvc.io/x="a.b_c-d"\n')).toEqual({
      app: "api",
      "pod-template-hash": "5d8b9c",
      "svc.io/x": "a.b_c-d",
    });
    expect(parsePodLabels("")).toEqual({});
  });
});

describe("FlagState", () => {
  it("numbers changes in order: added, modified, deleted", () => {
    const state = new FlagState();
    expect(state.apply("ADDED", checkout)).toEqual([
      {
        kind: "update",
        revision: 1,
        flag: { name: "new-checkout", key: "new-checkout", type: "boolean", value: "true", disabled: false },
      },
    ]);
    const toggled = featureFlag(
      "new-checkout",
      { type: "boolean", defaultValue: "true", enabled: false },
      "2",
    );
    expect(state.apply("MODIFIED", toggled)).toMatchObject([
      { kind: "update", revision: 2, flag: { disabled: true } },
    ]);
    expect(state.apply("DELETED", toggled)).toEqual([{ kind: "delete", revision: 3, name: "new-checkout" }]);
    expect(state.size).toBe(0);
    expect(state.revision).toBe(3);
  });

  it("emits nothing for a modification that changes no served field (status, description)", () => {
    const state = new FlagState();
    state.apply("ADDED", checkout);
    const described = featureFlag(
      "new-checkout",
      { type: "boolean", defaultValue: "true", enabled: true },
      "7",
    );
    expect(state.apply("MODIFIED", described)).toEqual([]);
    expect(state.apply("DELETED", featureFlag("unknown", {}))).toEqual([]);
    expect(state.revision).toBe(1);
  });

  it("drops a flag whose object stops being usable", () => {
    const state = new FlagState();
    state.apply("ADDED", checkout);
    expect(state.apply("MODIFIED", featureFlag("new-checkout", { type: "boolean" }))).toEqual([
      { kind: "delete", revision: 2, name: "new-checkout" },
    ]);
  });

  it("replace (a relist) emits exactly the difference, and nothing when nothing changed", () => {
    const state = new FlagState();
    const a = featureFlag("a", { type: "string", defaultValue: "1" });
    const b = featureFlag("b", { type: "string", defaultValue: "2" });
    expect(state.replace([a, b]).map((c) => c.kind)).toEqual(["update", "update"]);
    expect(state.replace([a, b])).toEqual([]);
    const b2 = featureFlag("b", { type: "string", defaultValue: "3" });
    const c = featureFlag("c", { type: "json", defaultValue: "{}" });
    expect(state.replace([b2, c])).toEqual([
      { kind: "delete", revision: 3, name: "a" },
      {
        kind: "update",
        revision: 4,
        flag: { name: "b", key: "b", type: "string", value: "3", disabled: false },
      },
      {
        kind: "update",
        revision: 5,
        flag: { name: "c", key: "c", type: "json", value: "{}", disabled: false },
      },
    ]);
  });

  it("lists entries in name order and re-renders whole-namespace responses after a change", () => {
    const state = new FlagState();
    state.replace([
      featureFlag("zeta", { type: "string", defaultValue: "z" }),
      featureFlag("alpha", { type: "string", defaultValue: "a" }),
    ]);
    expect(state.entries().map((e) => e.flag.name)).toEqual(["alpha", "zeta"]);
    const list = state.listResponse();
    expect(state.listResponse()).toBe(list);
    expect(JSON.parse(list.body.toString())).toEqual([
      { name: "alpha", type: "string", value: "a", disabled: false },
      { name: "zeta", type: "string", value: "z", disabled: false },
    ]);
    const etag = state.ofrepBulk({}).etag;
    state.apply("MODIFIED", featureFlag("alpha", { type: "string", defaultValue: "b" }));
    expect(state.listResponse()).not.toBe(list);
    expect((JSON.parse(state.listResponse().body.toString()) as unknown[])[0]).toMatchObject({ value: "b" });
    expect(state.ofrepBulk({}).etag).not.toBe(etag);
  });
});

describe("FlagState and OFREP", () => {
  const rules = {
    type: "string" as const,
    defaultValue: "basic",
    key: "plan.Tier_X",
    variants: { basic: "basic", pro: "pro" },
    defaultVariant: "basic",
    targeting: { if: [{ "==": [{ var: "plan" }, "pro"] }, "pro"] },
    metadata: { owner: "billing" },
  };

  it("reads key, variants, defaultVariant, targeting, evaluators and metadata; a rule change is a change", () => {
    const state = new FlagState();
    expect(state.apply("ADDED", featureFlag("tier", rules))).toMatchObject([
      {
        kind: "update",
        flag: { name: "tier", key: "plan.Tier_X", targeting: rules.targeting, metadata: rules.metadata },
      },
    ]);
    expect(state.apply("MODIFIED", featureFlag("tier", rules, "2"))).toEqual([]);
    const retargeted = { ...rules, targeting: { if: [{ "==": [{ var: "plan" }, "gold"] }, "pro"] } };
    expect(state.apply("MODIFIED", featureFlag("tier", retargeted, "3"))).toHaveLength(1);
    for (const change of [
      { metadata: { owner: "other" } },
      { evaluators: { x: { in: ["a", "b"] } } },
      { variants: { basic: "basic", pro: "PRO" } },
      { key: "other.key" },
    ]) {
      expect(
        state.apply("MODIFIED", featureFlag("tier", { ...retargeted, ...change })),
        JSON.stringify(change),
      ).toHaveLength(1);
    }
  });

  it("serves a flag under its key, the first name wins a shared key, and evaluates targeted flags per context", () => {
    const state = new FlagState();
    state.replace([
      featureFlag("tier", rules),
      featureFlag("a-tier", { type: "string", defaultValue: "shadow", key: "plan.Tier_X" }),
      featureFlag("plain", { type: "boolean", defaultValue: "true" }),
    ]);
    expect(state.byKey("plan.Tier_X")?.flag.name).toBe("a-tier");
    expect(state.byKey("tier")).toBeUndefined();
    state.apply("DELETED", featureFlag("a-tier", {}));
    expect(state.byKey("plan.Tier_X")?.flag.name).toBe("tier");
    const body = (context: EvaluationContext) =>
      JSON.parse(state.ofrepBulk(context).response.body.toString()) as unknown;
    expect(body({ plan: "pro" })).toMatchObject({
      flags: [
        { key: "plain", value: true, reason: "STATIC" },
        {
          key: "plan.Tier_X",
          value: "pro",
          variant: "pro",
          reason: "TARGETING_MATCH",
          metadata: { owner: "billing" },
        },
      ],
    });
    expect(body({})).toMatchObject({ flags: [{ key: "plain" }, { value: "basic", reason: "DEFAULT" }] });
  });

  it("tags the bulk answer by its content: equal answers share a tag, another answer has another", () => {
    const state = new FlagState();
    state.replace([featureFlag("tier", rules)]);
    const tag = (context: EvaluationContext) => state.ofrepBulk(context).etag;
    expect(tag({ plan: "pro" })).toBe(tag({ plan: "pro", other: 1 }));
    expect(tag({ plan: "basic" })).toBe(tag({}));
    expect(tag({ plan: "pro" })).not.toBe(tag({}));
  });

  it("tags the configuration the same for the same flags, whatever the order of changes", () => {
    const [a, b] = [featureFlag("a", rules), featureFlag("b", { type: "boolean", defaultValue: "true" })];
    const one = new FlagState();
    const two = new FlagState();
    one.replace([a, b]);
    two.apply("ADDED", b);
    const before = two.configEtag();
    two.apply("ADDED", a);
    expect(two.configEtag()).toBe(one.configEtag());
    expect(two.configEtag()).not.toBe(before);
    two.apply("DELETED", a);
    expect(two.configEtag()).toBe(before);
  });
});

describe("a flag whose rules exceed what a rule may cost (applied with kubectl)", () => {
  const good = {
    type: "boolean" as const,
    defaultValue: "false",
    variants: { on: "true", off: "false" },
    defaultVariant: "off",
    targeting: { if: [{ in: [{ var: "tenant" }, ["acme"]] }, "on", "off"] },
  };
  const overBound = { ...good, ...refChain(30) };
  const single = (state: FlagState, key: string, context: EvaluationContext) => {
    const entry = state.byKey(key);
    if (entry === undefined) throw new Error(`no flag ${key}`);
    const response = ofrepSingle(entry, context);
    return { status: response.status, body: JSON.parse(response.body.toString()) as Record<string, unknown> };
  };

  it("keeps serving the last good definition, through a watch event and a relist, until a good one comes", () => {
    const reported: [string, string, boolean][] = [];
    const state = new FlagState(undefined, undefined, (...refusal) => reported.push(refusal));
    state.apply("ADDED", featureFlag("beta", good));
    // No change at all: the stream, the lists and OFREP keep the good definition.
    expect(state.apply("MODIFIED", featureFlag("beta", overBound, "2"))).toEqual([]);
    // A status write (the same spec again) reports nothing more.
    expect(state.apply("MODIFIED", featureFlag("beta", overBound, "3"))).toEqual([]);
    expect(reported).toEqual([["beta", expect.stringContaining("expand ($ref) to") as string, true]]);
    expect(state.replace([featureFlag("beta", { ...good, targeting: nestedMap(4, 60) }, "3")])).toEqual([]);
    expect(single(state, "beta", { tenant: "acme" }).body).toMatchObject({ value: true, variant: "on" });
    const fixed = { ...good, targeting: { if: [{ in: [{ var: "tenant" }, ["globex"]] }, "on", "off"] } };
    expect(state.apply("MODIFIED", featureFlag("beta", fixed, "4"))).toHaveLength(1);
    expect(single(state, "beta", { tenant: "acme" }).body).toMatchObject({ value: false, variant: "off" });
  });

  it("answers OFREP GENERAL naming the bound when there never was a good definition, and evaluates nothing", () => {
    const state = new FlagState();
    expect(state.apply("ADDED", featureFlag("beta", overBound))).toMatchObject([
      { kind: "update", flag: { name: "beta", value: "false" } },
    ]);
    const answer = single(state, "beta", { email: "a@example.com" });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ key: "beta", errorCode: "GENERAL" });
    expect(answer.body["errorDetails"]).toMatch(/^targeting its rules expand \(\$ref\) to .* more than the/);
    const bulk = JSON.parse(state.ofrepBulk({}).response.body.toString()) as { flags: unknown[] };
    expect(bulk.flags).toMatchObject([{ key: "beta", errorCode: "GENERAL" }]);
    // A good definition afterwards is served as any other.
    state.apply("MODIFIED", featureFlag("beta", good, "2"));
    expect(single(state, "beta", { tenant: "acme" }).body).toMatchObject({ value: true });
  });
});
