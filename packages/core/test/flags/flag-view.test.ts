import { describe, expect, it } from "vitest";
import {
  flagResource,
  flagToggle,
  flagUpdate,
  flagUpdatedAt,
  flagView,
  validateFlagCreate,
  validateFlagUpdate,
  type FeatureFlagResource,
} from "../../src/index.ts";
import { invalidFlagCases, validFlagSpecs } from "../../../../test/support/flag-cases.ts";

function without<T extends object, K extends keyof T>(object: T, key: K): Omit<T, K> {
  return Object.fromEntries(Object.entries(object).filter(([k]) => k !== key)) as Omit<T, K>;
}

const address = { clusterId: "local", namespace: "shop", name: "new-checkout" };
const body = {
  ...address,
  type: "boolean",
  defaultValue: "true",
  description: "New checkout flow",
  delivery: { envVar: { selector: { matchLabels: { app: "web" } } } },
};

const stored: FeatureFlagResource = {
  apiVersion: "svc.io/v1alpha1",
  kind: "FeatureFlag",
  metadata: {
    name: "new-checkout",
    namespace: "shop",
    resourceVersion: "42",
    generation: 3,
    creationTimestamp: "2026-11-20T10:00:00Z",
    managedFields: [
      { manager: "svc-api", operation: "Update", time: "2026-11-21T09:00:00Z", fieldsV1: { "f:spec": {} } },
      // kubectl edited the spec later: that is the last change of the definition.
      {
        manager: "kubectl-edit",
        operation: "Update",
        time: "2026-11-21T12:30:00Z",
        fieldsV1: { "f:spec": {} },
      },
      // Status and finalizer writes are not changes of the flag.
      {
        manager: "svc-operator",
        operation: "Apply",
        subresource: "status",
        time: "2026-11-22T08:00:00Z",
        fieldsV1: { "f:status": {} },
      },
      {
        manager: "svc-operator",
        operation: "Apply",
        time: "2026-11-22T08:00:00Z",
        fieldsV1: { "f:metadata": {} },
      },
    ],
  },
  spec: {
    type: "boolean",
    defaultValue: "true",
    description: "New checkout flow",
    enabled: true,
    delivery: body.delivery,
  },
  status: {
    observedGeneration: 3,
    phase: "Degraded",
    targets: [{ kind: "Deployment", name: "web", delivered: false, outcome: "conflict", message: "x" }],
    message: "1 of 1 targets in conflict",
  },
};

describe("flagView", () => {
  it("is SPEC's fields plus enabled, resourceVersion, createdAt, updatedAt and status", () => {
    expect(flagView(stored, "local")).toEqual({
      name: "new-checkout",
      namespace: "shop",
      clusterId: "local",
      type: "boolean",
      defaultValue: "true",
      description: "New checkout flow",
      delivery: body.delivery,
      enabled: true,
      resourceVersion: "42",
      createdAt: "2026-11-20T10:00:00.000Z",
      updatedAt: "2026-11-21T12:30:00.000Z",
      status: {
        phase: "Degraded",
        targets: stored.status?.targets,
        message: "1 of 1 targets in conflict",
      },
    });
  });

  it("reads client-node's Date timestamps as well as JSON strings", () => {
    const metadata = {
      ...stored.metadata,
      creationTimestamp: new Date("2026-11-20T10:00:00Z"),
      managedFields: [],
    };
    expect(flagView({ ...stored, metadata }, "local").createdAt).toBe("2026-11-20T10:00:00.000Z");
    expect(flagUpdatedAt(metadata)).toBe("2026-11-20T10:00:00.000Z");
  });

  it("is Pending until the operator has seen the latest generation", () => {
    const newer = { ...stored, metadata: { ...stored.metadata, generation: 4 } };
    expect(flagView(newer, "local").status).toMatchObject({
      phase: "Pending",
      targets: stored.status?.targets,
    });
    const fresh = { ...stored, status: undefined };
    expect(flagView(fresh, "local").status).toEqual({
      phase: "Pending",
      targets: [],
      message: "waiting for the operator to deliver the latest change",
    });
  });

  it("shows a missing description as empty and a spec without enabled as enabled", () => {
    const spec = without(without(stored.spec, "description"), "enabled");
    expect(flagView({ ...stored, spec }, "local")).toMatchObject({ description: "", enabled: true });
  });
});

describe("validateFlagCreate and flagResource", () => {
  it("accepts SPEC's body and builds an enabled FeatureFlag from it", () => {
    const result = validateFlagCreate(body);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(flagResource(result.value)).toEqual({
      apiVersion: "svc.io/v1alpha1",
      kind: "FeatureFlag",
      metadata: { name: "new-checkout", namespace: "shop" },
      spec: {
        type: "boolean",
        defaultValue: "true",
        description: "New checkout flow",
        enabled: true,
        delivery: body.delivery,
      },
    });
    const off = validateFlagCreate({ ...body, enabled: false, description: "" });
    expect(off.ok && flagResource(off.value).spec).toEqual({
      type: "boolean",
      defaultValue: "true",
      enabled: false,
      delivery: body.delivery,
    });
  });

  it("accepts every valid spec of the shared case table", () => {
    for (const spec of validFlagSpecs) expect(validateFlagCreate({ ...address, ...spec }).ok).toBe(true);
  });

  it.each(invalidFlagCases.map((c) => [c.why, c] as const))("refuses %s, naming the field", (_why, c) => {
    const result = validateFlagCreate({ ...address, ...c.spec });
    expect(result.ok ? [] : result.errors.map((e) => e.field)).toContain(c.field);
  });

  it("requires name, namespace and clusterId as DNS-1123 labels, and refuses unknown fields", () => {
    const fields = (input: unknown) => {
      const result = validateFlagCreate(input);
      return result.ok ? [] : result.errors.map((e) => e.field);
    };
    expect(fields({ ...body, name: "New_Checkout" })).toEqual(["name"]);
    expect(fields({ ...body, namespace: "" })).toEqual(["namespace"]);
    expect(fields(without(body, "clusterId"))).toEqual(["clusterId"]);
    expect(fields({ ...body, status: {} })).toEqual(["status"]);
  });
});

describe("validateFlagUpdate and flagUpdate", () => {
  it("round-trips a GET: the view PUT back stores the same spec", () => {
    const view = flagView(stored, "local");
    const result = validateFlagUpdate(view, address);
    expect(result).toMatchObject({ ok: true });
    if (result.ok) expect(flagUpdate(stored, result.value)).toEqual(stored.spec);
  });

  it("keeps the enabled state when the body omits it, and drops an emptied description", () => {
    const disabled = { ...stored, spec: { ...stored.spec, enabled: false } };
    const edited = without(
      { ...flagView(stored, "local"), defaultValue: "false", description: "" },
      "enabled",
    );
    const result = validateFlagUpdate(edited, address);
    expect(result.ok && flagUpdate(disabled, result.value)).toEqual({
      type: "boolean",
      defaultValue: "false",
      enabled: false,
      delivery: body.delivery,
    });
  });

  it("refuses identity fields that differ from the path, naming each", () => {
    const result = validateFlagUpdate({ ...body, name: "other", clusterId: "prod" }, address);
    expect(result.ok ? [] : result.errors).toEqual([
      {
        field: "name",
        message: "is new-checkout in the path; a flag cannot be moved or renamed (create a new one)",
      },
      {
        field: "clusterId",
        message: "is local in the clusterId query; a flag cannot be moved or renamed (create a new one)",
      },
    ]);
  });

  it("applies the spec rules and refuses unknown fields", () => {
    const bad = validateFlagUpdate({ ...body, defaultValue: "maybe", colour: "blue" }, address);
    expect(bad.ok ? [] : bad.errors.map((e) => e.field)).toEqual(["colour"]);
    const value = validateFlagUpdate({ ...body, defaultValue: "maybe" }, address);
    expect(value.ok ? [] : value.errors.map((e) => e.field)).toEqual(["defaultValue"]);
    const both = validateFlagUpdate({ ...body, namespace: "other", defaultValue: "maybe" }, address);
    expect(both.ok ? [] : both.errors.map((e) => e.field)).toEqual(["namespace", "defaultValue"]);
  });
});

describe("flagToggle", () => {
  it("flips the state, or sets it idempotently from the body", () => {
    expect(flagToggle(stored).enabled).toBe(false);
    expect(flagToggle({ spec: { ...stored.spec, enabled: false } }).enabled).toBe(true);
    expect(flagToggle(stored, { enabled: true }).enabled).toBe(true);
    expect(flagToggle(stored, { enabled: false })).toEqual({ ...stored.spec, enabled: false });
  });
});
