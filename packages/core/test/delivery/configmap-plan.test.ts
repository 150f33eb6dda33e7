import { describe, expect, it } from "vitest";
import { planConfigMaps, planWorkload } from "../../src/index.ts";
import { CLUSTER, configMapFlag, flag, workload } from "../support/workloads.ts";

const web = { app: "web" };
const keyed = (name: string, configMapName: string, key: string, spec = {}) =>
  flag(name, { configMap: { configMapName, key, selector: { matchLabels: web } } }, spec);

describe("planConfigMaps", () => {
  it("writes each enabled flag's value under its key, owned by every flag that writes there", () => {
    const flags = [
      {
        ...keyed("limit", "web-flags", "limit", { defaultValue: "10" }),
        metadata: { name: "limit", namespace: "shop", uid: "u1" },
      },
      keyed("burst", "web-flags", "burst", { enabled: false }),
      keyed("theme", "ui-flags", "theme", { defaultValue: "dark" }),
      { ...keyed("other-ns", "web-flags", "x"), metadata: { name: "other-ns", namespace: "other" } },
    ];
    expect(planConfigMaps(flags, CLUSTER)).toEqual([
      {
        namespace: "other",
        configMapName: "web-flags",
        data: { x: "on" },
        owners: [{ name: "other-ns", uid: undefined }],
      },
      {
        namespace: "shop",
        configMapName: "ui-flags",
        data: { theme: "dark" },
        owners: [{ name: "theme", uid: undefined }],
      },
      {
        namespace: "shop",
        configMapName: "web-flags",
        data: { limit: "10" },
        owners: [
          { name: "burst", uid: undefined },
          { name: "limit", uid: "u1" },
        ],
      },
    ]);
  });

  it("leaves out flags being deleted, undeliverable values and other delivery kinds", () => {
    const deleting = keyed("gone", "web-flags", "gone");
    deleting.metadata.deletionTimestamp = "2026-11-22T08:00:00Z";
    const broken = keyed("broken", "web-flags", "broken", { type: "json", defaultValue: "{" });
    const env = flag("env", { envVar: { selector: { matchLabels: web } } });
    expect(planConfigMaps([deleting, broken, env], CLUSTER)).toEqual([]);
  });

  it("gives a key written by two flags to the first enabled one by name; the other reports a conflict", () => {
    const flags = [
      keyed("b", "web-flags", "k", { defaultValue: "b" }),
      keyed("a", "web-flags", "k", { defaultValue: "a" }),
    ];
    expect(planConfigMaps(flags, CLUSTER)[0]?.data).toEqual({ k: "a" });
    const outcomes = planWorkload(workload("web", { labels: web }), flags, CLUSTER).flags;
    expect(outcomes.map((o) => [o.flag, o.outcome, o.message])).toEqual([
      ["a", "pending", ""],
      ["b", "conflict", "flag a already writes key k of ConfigMap web-flags"],
    ]);
    const aOff = [
      keyed("b", "web-flags", "k", { defaultValue: "b" }),
      keyed("a", "web-flags", "k", { enabled: false }),
    ];
    expect(planConfigMaps(aOff, CLUSTER)[0]?.data).toEqual({ k: "b" });
  });

  it("keeps a key named __proto__", () => {
    const [plan] = planConfigMaps([configMapFlag("__proto__", "web-flags", web)], CLUSTER);
    expect(Object.keys(plan?.data ?? {})).toEqual(["__proto__"]);
    expect(JSON.stringify(plan?.data)).toBe('{"__proto__":"on"}');
  });
});
