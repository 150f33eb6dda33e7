// The "New rollout" form: the body it sends (POST /api/v1/rollouts), what the browser refuses
// before sending (by the API's field names), and the API's 400 placed under the fields it names.
import { RolloutCreateBody, validateRolloutSpec } from "@svc/core";
import Compile from "typebox/compile";
import { describe, expect, it } from "vitest";
import {
  bodyOf,
  emptyForm,
  emptyWave,
  formProblems,
  parseJsonFields,
  parseLabels,
  placeApiError,
  problemKeys,
  startAtOf,
  type RolloutForm,
} from "../app/rollouts/form-model.ts";

function form(patch: Partial<RolloutForm> = {}): RolloutForm {
  return {
    ...emptyForm("shop", "checkout"),
    defaultValue: "true",
    waves: [
      { ...emptyWave(5), clusters: ["local"] },
      { ...emptyWave(3600), by: "selector", selector: "region=eu, tier = web" },
    ],
    ...patch,
  };
}

describe("the body", () => {
  it("is a spec core's validator takes: flag, change, waves by id and by labels, bakes", () => {
    const body = bodyOf(form());
    expect(body).toEqual({
      flag: { namespace: "shop", name: "checkout" },
      change: { defaultValue: "true" },
      waves: [
        { clusters: ["local"], bakeSeconds: 5 },
        { clusterSelector: { matchLabels: { region: "eu", tier: "web" } }, bakeSeconds: 3600 },
      ],
    });
    expect(validateRolloutSpec(body).ok).toBe(true);
    expect(formProblems(form())).toEqual({});
  });

  it("adds a wave's share of workloads changed first when given", () => {
    const body = bodyOf(form({ waves: [{ ...emptyWave(5), clusters: ["local"], workloadPercent: " 10 " }] }));
    expect(body.waves).toEqual([{ clusters: ["local"], bakeSeconds: 5, workloadPercent: 10 }]);
    expect(validateRolloutSpec(body).ok).toBe(true);
  });

  it("adds the name, enabled, the JSON fields and the start time when given", () => {
    const body = bodyOf(
      form({
        name: " to-eu ",
        defaultValue: "",
        enabled: "off",
        json: '{"variants": {"on": "true", "off": "false"}, "defaultVariant": "off"}',
        startAt: "2026-12-01T09:00",
      }),
    );
    expect(body).toMatchObject({
      name: "to-eu",
      change: { enabled: false, variants: { on: "true", off: "false" }, defaultVariant: "off" },
    });
    expect(body.change).not.toHaveProperty("defaultValue");
    expect(body.startAt).toBe(startAtOf("2026-12-01T09:00"));
    expect(body.startAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00Z$/);
    expect(Date.parse(body.startAt ?? "")).toBe(new Date("2026-12-01T09:00").getTime());
    const { name, ...spec } = body;
    expect(name).toBe("to-eu");
    expect(validateRolloutSpec(spec).ok).toBe(true);
  });
});

describe("problems before sending", () => {
  it("names each by the API's field", () => {
    expect(
      formProblems(
        form({
          namespace: "",
          flagName: "Checkout",
          name: "-x",
          defaultValue: "",
          waves: [
            { ...emptyWave(), bakeSeconds: "90000" },
            { ...emptyWave(), by: "selector", selector: "region" },
            { ...emptyWave(), bakeSeconds: "1.5", clusters: ["a"] },
            { ...emptyWave(), clusters: ["a"], workloadPercent: "100" },
          ],
          startAt: "soon",
        }),
      ),
    ).toEqual({
      "flag.namespace": "is required",
      "flag.name": "must be a DNS-1123 label: lowercase letters, digits and '-'",
      name: "must be a DNS-1123 label: lowercase letters, digits and '-'",
      change: "set at least one of the value, enabled, or a field in the JSON box",
      "waves.0.bakeSeconds": "must be whole seconds from 0 to 86400",
      "waves.0.clusters": "choose at least one cluster",
      "waves.1.clusterSelector": "region: write it as key=value",
      "waves.2.bakeSeconds": "must be whole seconds from 0 to 86400",
      "waves.3.clusters": "names cluster a, which waves.2 names too",
      "waves.3.workloadPercent": "must be a whole percent from 1 to 99, or empty for all at once",
      startAt: "is not a time",
    });
  });

  it("checks the JSON box as typed", () => {
    expect(parseJsonFields("")).toEqual({});
    expect(parseJsonFields("{")).toMatch(/^not JSON: /);
    expect(parseJsonFields("[1]")).toBe("must be a JSON object");
    expect(parseJsonFields('{"delivery": {}}')).toBe(
      "delivery: not one of variants, defaultVariant, targeting, evaluators",
    );
    expect(formProblems(form({ json: "{" })).change).toMatch(/^not JSON/);
  });

  it("refuses a body the API's schema refuses", () => {
    // 17 labels for a wave's clusters, one over the schema's 16; a value past its 64 KiB.
    const selector = Array.from({ length: 17 }, (_, i) => `k${i}=v`).join(", ");
    const wide = form({ waves: [{ ...emptyWave(5), by: "selector", selector }] });
    expect(Compile(RolloutCreateBody).Check(bodyOf(wide))).toBe(false);
    expect(formProblems(wide)).toEqual({ waves: "refused by the API's schema" });
    const large = form({ defaultValue: "x".repeat(65_537) });
    expect(Compile(RolloutCreateBody).Check(bodyOf(large))).toBe(false);
    expect(formProblems(large)).toEqual({ change: "refused by the API's schema" });
  });

  it("parses label selectors", () => {
    expect(parseLabels("a=b,c=")).toEqual({ a: "b", c: "" });
    expect(parseLabels(" , ")).toBe("must hold at least one label, as key=value");
    expect(parseLabels("a b=c")).toBe("a b: is not a valid label key");
    expect(parseLabels("a=b c")).toBe("a: b c is not a valid label value");
  });
});

describe("the API's 400 under the fields it names", () => {
  const keys = problemKeys(form());

  it("puts each part under its field, or its nearest parent the form shows", () => {
    const placed = placeApiError(
      "waves.1.clusterSelector: matches no registered cluster; flag: shop/checkout not found in cluster eu-1; " +
        "change.defaultValue: must be true or false for a boolean flag (in cluster local); waves.1: holds cluster eu-1, which waves.0 holds too; progressDeadlineSeconds: must be at least 30",
      keys,
    );
    expect(Object.fromEntries(placed)).toEqual({
      "waves.1.clusterSelector": "waves.1.clusterSelector: matches no registered cluster",
      flag: "flag: shop/checkout not found in cluster eu-1",
      change: "change.defaultValue: must be true or false for a boolean flag (in cluster local)",
      "waves.1": "waves.1: holds cluster eu-1, which waves.0 holds too",
      "": "progressDeadlineSeconds: must be at least 30",
    });
  });

  it("keeps a message that is not a list of field problems whole", () => {
    const message =
      "plan checkout-a1b2c of flag shop/checkout is unfinished (Progressing); one plan per flag at a time";
    expect(Object.fromEntries(placeApiError(message, keys))).toEqual({ "": message });
  });
});
