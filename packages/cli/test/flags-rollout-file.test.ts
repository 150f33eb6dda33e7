// The plan file of `svc flags rollout create -f`: one plan in the body shape of POST
// /api/v1/rollouts or as `rollout get -o yaml` prints it, checked with core's own rules before any
// request, every problem named by its field (the shell exits 1 on any, nothing sent).
import { describe, expect, it } from "vitest";
import { parsePlanFile } from "../src/flags/rollout-file.ts";

describe("the plan file", () => {
  const plan = `
name: checkout-eu
flag: { namespace: shop, name: checkout }
change: { defaultValue: true }     # unquoted: read as its text
waves:
  - clusters: [staging]
    bakeSeconds: 120
  - clusterSelector: { matchLabels: { region: eu } }
progressDeadlineSeconds: 900
`;

  it("reads the body shape, the defaultValue as text", () => {
    expect(parsePlanFile(plan)).toEqual({
      ok: true,
      value: {
        name: "checkout-eu",
        flag: { namespace: "shop", name: "checkout" },
        change: { defaultValue: "true" },
        waves: [
          { clusters: ["staging"], bakeSeconds: 120 },
          { clusterSelector: { matchLabels: { region: "eu" } } },
        ],
        progressDeadlineSeconds: 900,
      },
    });
    // JSON is YAML; the name is optional.
    const json = parsePlanFile(
      '{"flag":{"namespace":"s","name":"f"},"change":{"enabled":false},"waves":[{"clusters":["a"]}]}',
    );
    expect(json.ok && json.value).toEqual({
      flag: { namespace: "s", name: "f" },
      change: { enabled: false },
      waves: [{ clusters: ["a"] }],
    });
  });

  it("reads a plan as `rollout get -o yaml` prints it, ignoring what the API wrote and the actions taken", () => {
    const printed = `
name: old-plan
author: ed
createdAt: "2026-11-27T10:00:00Z"
spec:
  flag: { namespace: shop, name: checkout }
  change: { defaultValue: "false" }
  waves: [{ clusters: [local], bakeSeconds: 60 }]
  paused: true
  abort: true
  skipBake: 0
status: { phase: RolledBack }
`;
    expect(parsePlanFile(printed)).toEqual({
      ok: true,
      value: {
        name: "old-plan",
        flag: { namespace: "shop", name: "checkout" },
        change: { defaultValue: "false" },
        waves: [{ clusters: ["local"], bakeSeconds: 60 }],
      },
    });
  });

  it("names every problem by its field, with core's own rules", () => {
    const errors = (text: string) => {
      const parsed = parsePlanFile(text);
      return parsed.ok ? [] : parsed.errors.map((e) => `${e.field}: ${e.message}`);
    };
    expect(errors("")).toEqual([": holds no plan"]);
    expect(errors("[1, 2]")).toEqual([": must be a plan (a mapping of its fields)"]);
    expect(errors("a: [")[0]).toMatch(/^: not YAML or JSON: /);
    expect(errors("a: 1\n---\nb: 2\n")).toEqual([": holds 2 documents: one plan per file"]);
    expect(errors(plan.replace("bakeSeconds: 120", "bakeSeconds: 90000"))).toEqual([
      expect.stringMatching(/^waves\.0\.bakeSeconds: /),
    ]);
    expect(errors(plan.replace("checkout-eu", "Checkout"))).toEqual([
      "name: must be a DNS-1123 label (lowercase letters, digits and '-', at most 63)",
    ]);
    expect(errors(`${plan}replicas: 3\n`)).toEqual([expect.stringMatching(/^replicas: /)]);
    expect(
      errors(
        plan
          .replace("[staging]", "[region]")
          .replace("clusterSelector: { matchLabels: { region: eu } }", "clusters: [region]"),
      ),
    ).toEqual(["waves.1.clusters: names cluster region, which waves.0 names too"]);
  });
});
