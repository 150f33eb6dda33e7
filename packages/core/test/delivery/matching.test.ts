import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { flagMatchesWorkload, indexFlags, matchingFlags, selectorMatches } from "../../src/index.ts";
import { envFlag, workload } from "../support/workloads.ts";

const labelKey = fc.constantFrom("app", "tier", "team", "example.com/app", "constructor");
const labelValue = fc.constantFrom("", "web", "api", "db");
const labels = fc.dictionary(labelKey, labelValue, { maxKeys: 4 });

describe("selectorMatches", () => {
  it("matches when every selector label is on the object with the same value", () => {
    expect(selectorMatches({ app: "web" }, { app: "web", tier: "front" })).toBe(true);
    expect(selectorMatches({ app: "web", tier: "front" }, { app: "web" })).toBe(false);
    expect(selectorMatches({ app: "web" }, { app: "api" })).toBe(false);
    expect(selectorMatches({ tier: "" }, { tier: "" })).toBe(true);
    expect(selectorMatches({ tier: "" }, {})).toBe(false);
  });

  it("never matches with an empty selector or on an object without labels", () => {
    expect(selectorMatches({}, { app: "web" })).toBe(false);
    expect(selectorMatches({ app: "web" }, undefined)).toBe(false);
  });

  it("does not take inherited object properties for labels", () => {
    expect(selectorMatches({ constructor: "web" }, {})).toBe(false);
  });

  it("is the subset relation for every selector and label set", () => {
    fc.assert(
      fc.property(labels, labels, (selector, objectLabels) => {
        const subset =
          Object.keys(selector).length > 0 &&
          Object.entries(selector).every(([k, v]) => Object.hasOwn(objectLabels, k) && objectLabels[k] === v);
        expect(selectorMatches(selector, objectLabels)).toBe(subset);
        // Adding labels to the object never loses a match.
        if (subset) expect(selectorMatches(selector, { ...objectLabels, extra: "x" })).toBe(true);
      }),
    );
  });
});

describe("flagMatchesWorkload", () => {
  const web = envFlag("checkout", { app: "web" });

  it("matches the workload's own labels first, then its pod template labels", () => {
    expect(flagMatchesWorkload(web, workload("a", { labels: { app: "web" } }))).toBe("labels");
    expect(flagMatchesWorkload(web, workload("b", { templateLabels: { app: "web" } }))).toBe(
      "podTemplateLabels",
    );
    expect(
      flagMatchesWorkload(web, workload("c", { labels: { app: "web" }, templateLabels: { app: "web" } })),
    ).toBe("labels");
    expect(flagMatchesWorkload(web, workload("d", { labels: { app: "api" } }))).toBeUndefined();
  });

  it("does not match across the two label sets: all labels must be on one of them", () => {
    const flag = envFlag("checkout", { app: "web", tier: "front" });
    const split = workload("split", { labels: { app: "web" }, templateLabels: { tier: "front" } });
    expect(flagMatchesWorkload(flag, split)).toBeUndefined();
  });

  it("only matches in the flag's namespace", () => {
    expect(flagMatchesWorkload(web, workload("a", { labels: { app: "web" }, namespace: "other" }))).toBe(
      undefined,
    );
  });

  it("matches every kind of workload alike", () => {
    for (const kind of ["Deployment", "StatefulSet", "DaemonSet"] as const) {
      expect(flagMatchesWorkload(web, workload("a", { kind, templateLabels: { app: "web" } }))).toBe(
        "podTemplateLabels",
      );
    }
  });
});

describe("matchingFlags over an index", () => {
  const selector = fc.dictionary(labelKey, labelValue, { minKeys: 1, maxKeys: 3 });
  const flags = fc.uniqueArray(
    fc.record({ name: fc.constantFrom("a", "b", "c", "d", "e", "f"), selector, deleting: fc.boolean() }),
    { selector: (f) => f.name, maxLength: 6 },
  );

  it("finds exactly the flags the matching rule names, by name, none being deleted", () => {
    fc.assert(
      fc.property(flags, labels, labels, (specs, own, template) => {
        const all = specs.map((s) => {
          const f = envFlag(s.name, s.selector);
          if (s.deleting) f.metadata.deletionTimestamp = "2026-11-22T08:00:00Z";
          return f;
        });
        const target = workload("w", { labels: own, templateLabels: template });
        const expected = all
          .filter((f) => f.metadata.deletionTimestamp === undefined)
          .flatMap((flag) => {
            const matchedBy = flagMatchesWorkload(flag, target);
            return matchedBy === undefined ? [] : [{ flag, matchedBy }];
          })
          .sort((x, y) => (x.flag.metadata.name < y.flag.metadata.name ? -1 : 1));
        expect(matchingFlags(indexFlags(all), target)).toEqual(expected);
      }),
    );
  });
});
