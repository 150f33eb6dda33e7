// What svc flags prints: tables for people, the API's own objects as json and yaml (a yaml that
// apply -f takes back unchanged), and diff's field changes with the workloads they touch.
import type { FlagView } from "@svc/core";
import { describe, expect, it } from "vitest";
import { parseApplyFile } from "../src/flags/apply-file.ts";
import { planFlag } from "../src/flags/plan.ts";
import { renderApplied, renderFlags, renderPlans, shorten, table } from "../src/flags/render.ts";

const flag: FlagView = {
  name: "limit",
  namespace: "shop",
  clusterId: "local",
  type: "json",
  defaultValue: '{\n  "max": 10\n}',
  description: "Cart limit",
  delivery: {
    configMap: { configMapName: "f", key: "limit", selector: { matchLabels: { app: "web", tier: "front" } } },
  },
  enabled: true,
  resourceVersion: "7",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  status: { phase: "Delivered", targets: [], message: "" },
};

describe("tables", () => {
  it("pads columns to their widest cell, with no trailing spaces", () => {
    expect(
      table([
        ["A", "BB", "C"],
        ["aaa", "b", "c"],
      ]),
    ).toBe("A    BB  C\naaa  b   c\n");
  });

  it("shows one line per flag, a value on one line", () => {
    expect(renderFlags([flag], "table")).toBe(
      "NAMESPACE  NAME   CLUSTER  TYPE  VALUE          ENABLED  DELIVERY                      PHASE\n" +
        'shop       limit  local    json  { "max": 10 }  yes      configMap app=web,tier=front  Delivered\n',
    );
    expect(renderFlags([], "table")).toBe("no flags\n");
    expect(shorten("x".repeat(50), 10)).toBe(`${"x".repeat(9)}…`);
  });
});

describe("json and yaml", () => {
  it("print the API's objects; get -o yaml read back by apply is unchanged", () => {
    expect(JSON.parse(renderFlags(flag, "json"))).toEqual(flag);
    const yaml = renderFlags(flag, "yaml");
    expect(yaml).toContain("name: limit\n");
    const file = parseApplyFile(yaml, "local");
    expect(file.ok && file.value[0] !== undefined && planFlag(file.value[0], flag).action).toBe("unchanged");
  });
});

it("diff shows each change, the workloads touched, and a count", () => {
  const plan = {
    ...planFlag({ ...flag, defaultValue: "{}" }, flag),
    preview: [
      {
        kind: "Deployment" as const,
        namespace: "shop",
        name: "web",
        matchedBy: "labels" as const,
        restarts: false,
        reasons: [],
        value: "{}",
      },
      {
        kind: "StatefulSet" as const,
        namespace: "shop",
        name: "db",
        matchedBy: "none" as const,
        restarts: true,
        reasons: ["ConfigMap volume removed"],
      },
    ],
  };
  const unchanged = planFlag(flag, flag);
  expect(renderPlans([plan, { ...unchanged, name: "other" }], "table")).toBe(
    [
      "~ shop/limit (cluster local): changed",
      '    defaultValue: "{\\n  \\"max\\": 10\\n}" → "{}"',
      "    workloads (2):",
      '      Deployment shop/web  matched by labels  no restart                           value "{}"',
      "      StatefulSet shop/db  withdrawn          restarts (ConfigMap volume removed)",
      "= shop/other (cluster local): unchanged",
      "0 to create, 1 to change, 1 unchanged",
      "",
    ].join("\n"),
  );
  expect(JSON.parse(renderPlans([plan], "json"))).toEqual([plan]);
});

it("apply says what it did to each flag, or would do on a dry run", () => {
  const plan = planFlag(flag, undefined);
  expect(renderApplied([{ plan, result: "created" }], false, "table")).toBe(
    "shop/limit (cluster local) created\n",
  );
  expect(renderApplied([{ plan, result: "created" }], true, "table")).toBe(
    "shop/limit (cluster local) created (dry run)\n",
  );
  expect(JSON.parse(renderApplied([{ plan, result: "created" }], true, "json"))).toMatchObject([
    { namespace: "shop", name: "limit", result: "created", dryRun: true },
  ]);
});
