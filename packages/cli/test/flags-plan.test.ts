// What apply and diff decide per flag (create, update field by field, unchanged) and the bodies
// create and set send.
import type { FlagView } from "@svc/core";
import { describe, expect, it } from "vitest";
import { createBody, deliveryOf, setBody } from "../src/flags/edits.ts";
import { fieldChanges, planFlag } from "../src/flags/plan.ts";

const selector = { matchLabels: { app: "web" } };
const stored: FlagView = {
  name: "a",
  namespace: "shop",
  clusterId: "local",
  type: "boolean",
  defaultValue: "true",
  description: "",
  delivery: { envVar: { name: "CHECKOUT", selector } },
  enabled: false,
  resourceVersion: "7",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  status: { phase: "Delivered", targets: [], message: "" },
};
const desired = {
  name: "a",
  namespace: "shop",
  clusterId: "local",
  type: "boolean" as const,
  defaultValue: "true",
  delivery: { envVar: { name: "CHECKOUT", selector } },
};

describe("planFlag", () => {
  it("is unchanged when the definition is the stored one: no description is an empty one; no enabled keeps the state", () => {
    expect(planFlag(desired, stored)).toEqual({
      cluster: "local",
      namespace: "shop",
      name: "a",
      action: "unchanged",
      changes: [],
    });
    expect(planFlag({ ...desired, description: "" }, stored).action).toBe("unchanged");
    expect(planFlag({ ...desired, enabled: false }, stored).action).toBe("unchanged");
  });

  it("lists each changed field by its dotted path, with before and after", () => {
    const plan = planFlag(
      {
        ...desired,
        enabled: true,
        description: "new",
        delivery: { envVar: { selector: { matchLabels: { app: "shop" } } } },
      },
      stored,
    );
    expect(plan.action).toBe("update");
    expect(plan.changes).toEqual([
      { field: "description", after: "new" },
      { field: "enabled", before: false, after: true },
      { field: "delivery.envVar.selector.matchLabels.app", before: "web", after: "shop" },
      { field: "delivery.envVar.name", before: "CHECKOUT" },
    ]);
  });

  it("shows a new flag's every field, enabled unless the file says otherwise", () => {
    const plan = planFlag(desired, undefined);
    expect(plan.action).toBe("create");
    expect(plan.changes).toContainEqual({ field: "enabled", after: true });
    expect(plan.changes).toContainEqual({ field: "delivery.envVar.selector.matchLabels.app", after: "web" });
  });
});

it("fieldChanges compares arrays and rules as whole values, key order aside", () => {
  const rule = { if: [{ "==": [{ var: "plan" }, "pro"] }, "on", "off"] };
  expect(
    fieldChanges(
      { targeting: rule, variants: { on: true } },
      { variants: { on: true }, targeting: { ...rule } },
    ),
  ).toEqual([]);
  expect(fieldChanges({ targeting: rule }, { targeting: { if: [true, "on", "off"] } })).toEqual([
    { field: "targeting.if", before: rule.if, after: [true, "on", "off"] },
  ]);
});

describe("create and set bodies", () => {
  it("create sends the options' definition, a sidecar delivery by default", () => {
    expect(
      createBody(
        { cluster: "eu", namespace: "shop", name: "b" },
        { type: "integer", value: "3", selector: { app: "web" } },
        true,
      ),
    ).toEqual({
      name: "b",
      namespace: "shop",
      clusterId: "eu",
      type: "integer",
      defaultValue: "3",
      enabled: true,
      delivery: { sidecar: { selector } },
    });
  });

  it("set changes only the options' fields, keeps the delivery's settings of the same kind, and carries the version read", () => {
    expect(setBody(stored, { value: "false" })).toEqual({
      type: "boolean",
      defaultValue: "false",
      // The API shows no description as ""; a PUT without one stores the same.
      delivery: stored.delivery,
      resourceVersion: "7",
    });
    expect(setBody(stored, { selector: { app: "shop" } }).delivery).toEqual({
      envVar: { name: "CHECKOUT", selector: { matchLabels: { app: "shop" } } },
    });
    // A new kind starts from its own defaults, with the selector kept unless given.
    expect(deliveryOf({ delivery: "sidecar", port: 9000 }, stored.delivery)).toEqual({
      sidecar: { port: 9000, selector },
    });
    expect(deliveryOf({ delivery: "configMap", configMap: "f", key: "k" }, stored.delivery)).toEqual({
      configMap: { configMapName: "f", key: "k", selector },
    });
  });
});
