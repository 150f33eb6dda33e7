import { FlagCreateBody } from "@svc/core";
import type { FlagView, PreviewEntry } from "@svc/core/browser";
import Compile from "typebox/compile";
import { describe, expect, it } from "vitest";
import {
  bodyFromForm,
  emptyForm,
  formFromFlag,
  formProblems,
  jsonProblem,
  restartWarning,
  valueForType,
  type FlagForm,
} from "../app/flags/form-model.ts";

const valid: FlagForm = {
  ...emptyForm("local", "shop"),
  name: "new-checkout",
  labels: [{ key: "app", value: "web" }],
};

describe("formProblems", () => {
  it("finds nothing wrong with a complete form", () => {
    expect(formProblems(valid)).toEqual({});
  });

  it("refuses a body the API's schema refuses, under the field it names", () => {
    const form = { ...valid, description: "x".repeat(1025) };
    expect(Compile(FlagCreateBody).Check(bodyFromForm(form))).toBe(false);
    expect(formProblems(form)).toEqual({
      description: "description: refused by the API's schema: at most 1024 characters",
    });
    expect(formProblems({ ...valid, description: "x".repeat(1024) })).toEqual({});
  });

  it("checks the value by the flag's type, as the API does", () => {
    expect(formProblems({ ...valid, type: "integer", value: "1.5" })["defaultValue"]).toMatch(/64-bit/);
    expect(formProblems({ ...valid, type: "integer", value: "9223372036854775808" })["defaultValue"]).toMatch(
      /64-bit/,
    );
    expect(formProblems({ ...valid, type: "integer", value: "-9223372036854775808" })).toEqual({});
    expect(formProblems({ ...valid, type: "json", value: "{" })["defaultValue"]).toBeDefined();
    expect(formProblems({ ...valid, type: "boolean", value: "yes" })["defaultValue"]).toBeDefined();
  });

  it("names each problem by the field the API would name", () => {
    const problems = formProblems({
      ...valid,
      name: "Bad_Name",
      kind: "configMap",
      configMapName: "UPPER",
      configMapKey: "a/b",
      labels: [],
    });
    expect(Object.keys(problems).sort()).toEqual([
      "delivery.configMap.configMapName",
      "delivery.configMap.key",
      "delivery.configMap.selector.matchLabels",
      "name",
    ]);
    expect(problems["delivery.configMap.selector.matchLabels"]).toMatch(/every workload/);
  });

  it("refuses bad labels and a label key given twice", () => {
    const selector = "delivery.envVar.selector.matchLabels";
    expect(formProblems({ ...valid, labels: [{ key: "bad key", value: "x" }] })[selector]).toMatch(
      /label key/,
    );
    expect(formProblems({ ...valid, labels: [{ key: "app", value: "-x" }] })[selector]).toMatch(
      /label value/,
    );
    expect(
      formProblems({
        ...valid,
        labels: [
          { key: "app", value: "a" },
          { key: "app", value: "b" },
        ],
      })[selector],
    ).toMatch(/twice/);
  });

  it("checks the sidecar port range and the variable name", () => {
    expect(
      formProblems({ ...valid, kind: "sidecar", sidecarPort: "80" })["delivery.sidecar.port"],
    ).toBeDefined();
    expect(formProblems({ ...valid, kind: "sidecar", sidecarPort: "9000" })).toEqual({});
    expect(formProblems({ ...valid, envVarName: "1BAD" })["delivery.envVar.name"]).toBeDefined();
  });
});

describe("bodyFromForm and formFromFlag", () => {
  it("builds the API body of the chosen delivery, leaving defaults out", () => {
    expect(bodyFromForm(valid)).toEqual({
      name: "new-checkout",
      namespace: "shop",
      clusterId: "local",
      type: "boolean",
      defaultValue: "false",
      description: "",
      enabled: true,
      delivery: { envVar: { selector: { matchLabels: { app: "web" } } } },
    });
    expect(bodyFromForm({ ...valid, kind: "sidecar", sidecarPort: "9000" }).delivery).toEqual({
      sidecar: { port: 9000, selector: { matchLabels: { app: "web" } } },
    });
  });

  it("round-trips a flag through the form", () => {
    const body = bodyFromForm({
      ...valid,
      kind: "configMap",
      configMapName: "flags",
      configMapKey: "checkout",
      type: "json",
      value: '{"a":1}',
    });
    const flag = {
      ...body,
      resourceVersion: "7",
      status: { phase: "Pending", targets: [], message: "" },
    } as unknown as FlagView;
    expect(bodyFromForm(formFromFlag(flag))).toEqual(body);
  });
});

describe("small helpers", () => {
  it("keeps a value that suits the new type, else starts from a valid one", () => {
    expect(valueForType("string", "true")).toBe("true");
    expect(valueForType("integer", "true")).toBe("0");
    expect(valueForType("json", "hello")).toBe("{}");
  });

  it("tells JSON's parse error", () => {
    expect(jsonProblem('{"a": 1}')).toBeUndefined();
    expect(jsonProblem("{")).toBeDefined();
  });

  it("names the workloads that will restart", () => {
    const entry = (name: string, restarts: boolean): PreviewEntry => ({
      kind: "Deployment",
      namespace: "shop",
      name,
      matchedBy: "labels",
      restarts,
      reasons: restarts ? ["env var added"] : [],
    });
    expect(restartWarning([entry("a", false)])).toBeUndefined();
    expect(restartWarning([entry("a", true)])).toBe("1 workload will restart: Deployment shop/a");
    expect(restartWarning([entry("a", true), entry("b", false), entry("c", true)])).toBe(
      "2 workloads will restart: Deployment shop/a, Deployment shop/c",
    );
  });
});
