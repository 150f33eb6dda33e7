import { describe, expect, it } from "vitest";
import {
  defaultEnvVarName,
  deliveryKind,
  describeErrors,
  flagNameError,
  isEnabled,
  namespaceError,
  validateFlagSpec,
  type FieldError,
} from "../../src/index.ts";
import { invalidFlagCases, invalidFlagNames, validFlagSpecs } from "../../../../test/support/flag-cases.ts";

const selector = { matchLabels: { app: "web" } };
const valid = {
  type: "boolean",
  defaultValue: "true",
  description: "New checkout flow",
  delivery: { envVar: { selector } },
};

/** Validates `valid` with `patch` applied and returns the errors. */
function errorsOf(patch: Record<string, unknown>, prefix = ""): FieldError[] {
  const result = validateFlagSpec({ ...valid, ...patch }, prefix);
  return result.ok ? [] : result.errors;
}

function fieldsOf(patch: Record<string, unknown>): string[] {
  return errorsOf(patch).map((e) => e.field);
}

describe("validateFlagSpec", () => {
  it("accepts a valid spec of every delivery kind and returns it unchanged", () => {
    for (const delivery of [
      { envVar: { selector } },
      { envVar: { name: "CHECKOUT_V2", selector } },
      { configMap: { configMapName: "flags.web", key: "checkout.enabled", selector } },
      { sidecar: { selector } },
      { sidecar: { port: 9000, selector } },
    ]) {
      const spec = { ...valid, delivery, enabled: false };
      expect(validateFlagSpec(spec)).toEqual({ ok: true, value: spec });
    }
  });

  it("rejects a type outside boolean, integer, string, json", () => {
    expect(errorsOf({ type: "float" })).toEqual([
      { field: "type", message: "must be one of: boolean, integer, string, json" },
    ]);
  });

  it.each([
    ["boolean", ["true", "false"], ["True", "1", "yes", ""]],
    [
      "integer",
      ["0", "-5", "42", "9223372036854775807", "-9223372036854775808"],
      ["1.5", "01", "", "abc", "+1", "9223372036854775808", "-9223372036854775809", "1e3"],
    ],
    ["json", ['{"a":1}', "[1,2]", '"x"', "null", "3"], ["{", "", "{a:1}", "undefined"]],
    ["string", ["", "anything at all", "{"], []],
  ])("checks that defaultValue parses as a %s", (type, good, bad) => {
    for (const defaultValue of good) expect(errorsOf({ type, defaultValue })).toEqual([]);
    for (const defaultValue of bad) {
      const errors = errorsOf({ type, defaultValue });
      expect(errors).toHaveLength(1);
      expect(errors[0]?.field).toBe("defaultValue");
      expect(errors[0]?.message).toContain(type);
    }
  });

  it("requires type, defaultValue and delivery, naming each", () => {
    const result = validateFlagSpec({});
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.errors.map((e) => e.field).sort()).toEqual([
      "defaultValue",
      "delivery",
      "type",
    ]);
  });

  it("rejects a defaultValue that is not a string, even for typed flags", () => {
    expect(errorsOf({ type: "boolean", defaultValue: true })).toEqual([
      { field: "defaultValue", message: "must be a string" },
    ]);
  });

  it("limits the description to 1024 characters", () => {
    expect(fieldsOf({ description: "x".repeat(1024) })).toEqual([]);
    expect(errorsOf({ description: "x".repeat(1025) })).toEqual([
      { field: "description", message: "must be at most 1024 characters" },
    ]);
  });

  it("requires exactly one delivery kind", () => {
    const message = "must hold exactly one of envVar, configMap or sidecar";
    expect(errorsOf({ delivery: {} })).toEqual([{ field: "delivery", message }]);
    expect(errorsOf({ delivery: { envVar: { selector }, sidecar: { selector } } })).toEqual([
      { field: "delivery", message },
    ]);
  });

  it("refuses an empty selector, which would restart a whole namespace", () => {
    const errors = errorsOf({ delivery: { sidecar: { selector: { matchLabels: {} } } } });
    expect(errors).toHaveLength(1);
    expect(errors[0]?.field).toBe("delivery.sidecar.selector.matchLabels");
    expect(errors[0]?.message).toMatch(/at least one label/);
    expect(fieldsOf({ delivery: { sidecar: { selector: {} } } })).toEqual([
      "delivery.sidecar.selector.matchLabels",
    ]);
  });

  it("checks selector label keys and values", () => {
    const withLabels = (matchLabels: Record<string, string>) =>
      fieldsOf({ delivery: { envVar: { selector: { matchLabels } } } });
    expect(withLabels({ "app.kubernetes.io/name": "web", tier: "", "x_y.z": "A-1_b.c" })).toEqual([]);
    expect(withLabels({ "bad key": "web" })).toEqual(["delivery.envVar.selector.matchLabels.bad key"]);
    expect(withLabels({ "Example.com/app": "web" })).toEqual([
      "delivery.envVar.selector.matchLabels.Example.com/app",
    ]);
    expect(withLabels({ ["k".repeat(64)]: "web" })).toHaveLength(1);
    expect(withLabels({ app: "-web" })).toEqual(["delivery.envVar.selector.matchLabels.app"]);
    expect(withLabels({ app: "w".repeat(64) })).toEqual(["delivery.envVar.selector.matchLabels.app"]);
  });

  it("requires envVar.name to be a C identifier", () => {
    const named = (name: string) => errorsOf({ delivery: { envVar: { name, selector } } });
    expect(named("_OK_1")).toEqual([]);
    for (const name of ["1ABC", "A-B", "A B", "", "É"]) {
      expect(named(name)).toEqual([
        {
          field: "delivery.envVar.name",
          message: "must be a C identifier: letters, digits and '_', not starting with a digit",
        },
      ]);
    }
  });

  it("requires a DNS-1123 subdomain configMapName and a valid key", () => {
    const configMap = (configMapName: string, key: string) =>
      fieldsOf({ delivery: { configMap: { configMapName, key, selector } } });
    expect(configMap("web-flags", "a.b_c-d")).toEqual([]);
    expect(configMap("Web", "a")).toEqual(["delivery.configMap.configMapName"]);
    expect(configMap("a".repeat(254), "a")).toEqual(["delivery.configMap.configMapName"]);
    expect(configMap("web", "a/b")).toEqual(["delivery.configMap.key"]);
    expect(configMap("web", ".")).toEqual(["delivery.configMap.key"]);
    expect(configMap("web", "..")).toEqual(["delivery.configMap.key"]);
    expect(fieldsOf({ delivery: { configMap: { key: "a", selector } } })).toEqual([
      "delivery.configMap.configMapName",
    ]);
  });

  it("limits the sidecar port to 1024-65535", () => {
    const port = (p: unknown) => errorsOf({ delivery: { sidecar: { port: p, selector } } });
    expect(port(1024)).toEqual([]);
    expect(port(65535)).toEqual([]);
    for (const p of [80, 65536, 0]) {
      expect(port(p)).toEqual([
        { field: "delivery.sidecar.port", message: "must be between 1024 and 65535" },
      ]);
    }
    expect(port(8514.5)).toEqual([{ field: "delivery.sidecar.port", message: "must be an integer" }]);
  });

  it("rejects unknown fields anywhere, naming them", () => {
    expect(errorsOf({ colour: "red" })).toEqual([{ field: "colour", message: "is not a known field" }]);
    expect(fieldsOf({ delivery: { envVar: { selector, extra: 1 } } })).toEqual(["delivery.envVar.extra"]);
    expect(fieldsOf({ delivery: { webhook: { selector } } })).toEqual(["delivery.webhook"]);
  });

  it("names fields under the caller's prefix", () => {
    expect(errorsOf({ type: "float" }, "spec").map((e) => e.field)).toEqual(["spec.type"]);
    expect(errorsOf({ type: "integer", defaultValue: "x" }, "spec").map((e) => e.field)).toEqual([
      "spec.defaultValue",
    ]);
  });

  it("rejects what is not an object", () => {
    for (const input of [null, "flag", 3, []]) expect(validateFlagSpec(input).ok).toBe(false);
  });
});

describe("flag identity", () => {
  it("requires DNS-1123 labels for name and namespace", () => {
    expect(flagNameError("new-checkout")).toBeUndefined();
    expect(namespaceError("shop")).toBeUndefined();
    expect(flagNameError("a".repeat(63))).toBeUndefined();
    for (const bad of ["New", "a_b", "-a", "a-", "a".repeat(64), "a.b"]) {
      expect(flagNameError(bad)?.field).toBe("name");
      expect(namespaceError(bad)?.field).toBe("namespace");
    }
    expect(flagNameError("")).toEqual({ field: "name", message: "is required" });
  });
});

describe("flag helpers", () => {
  it("derives the default env var name", () => {
    expect(defaultEnvVarName("new-checkout")).toBe("FLAG_NEW_CHECKOUT");
    expect(defaultEnvVarName("1x")).toBe("FLAG_1X");
  });

  it("tells the delivery kind and the enabled state", () => {
    expect(deliveryKind({ configMap: { configMapName: "c", key: "k", selector } })).toBe("configMap");
    expect(isEnabled({})).toBe(true);
    expect(isEnabled({ enabled: false })).toBe(false);
  });

  it("joins errors into one message naming the fields", () => {
    expect(
      describeErrors([
        { field: "type", message: "is required" },
        { field: "", message: "must be an object" },
      ]),
    ).toBe("type: is required; must be an object");
  });
});

describe("the cases shared with the API server test", () => {
  it.each(invalidFlagCases.map((c) => [c.why, c] as const))("refuses %s", (_why, c) => {
    const result = validateFlagSpec(c.spec);
    expect(result.ok ? [] : result.errors.map((e) => e.field)).toEqual([c.field]);
  });

  it("accepts the valid specs", () => {
    for (const spec of validFlagSpecs) expect(validateFlagSpec(spec)).toEqual({ ok: true, value: spec });
  });

  it("refuses the invalid names", () => {
    for (const name of invalidFlagNames) expect(flagNameError(name)?.field).toBe("name");
  });
});
