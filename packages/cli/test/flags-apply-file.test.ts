// The file of `apply -f`: YAML or JSON flags in the REST body shape, validated by core's own
// rules before any request; a bad file names each field, by index and flag.
import { describe, expect, it } from "vitest";
import { parseApplyFile } from "../src/flags/apply-file.ts";

const selector = { matchLabels: { app: "web" } };

describe("parseApplyFile", () => {
  it("reads a YAML list, defaulting clusterId and reading unquoted scalars as defaultValue's text", () => {
    const result = parseApplyFile(
      `- name: a\n  namespace: shop\n  type: boolean\n  defaultValue: true\n  delivery: { sidecar: { selector: { matchLabels: { app: web } } } }\n` +
        `- name: b\n  namespace: shop\n  clusterId: eu\n  type: integer\n  defaultValue: 42\n  delivery: { envVar: { selector: { matchLabels: { app: web } } } }\n`,
      "local",
    );
    expect(result).toEqual({
      ok: true,
      value: [
        {
          clusterId: "local",
          name: "a",
          namespace: "shop",
          type: "boolean",
          defaultValue: "true",
          delivery: { sidecar: { selector } },
        },
        {
          clusterId: "eu",
          name: "b",
          namespace: "shop",
          type: "integer",
          defaultValue: "42",
          delivery: { envVar: { selector } },
        },
      ],
    });
  });

  it("reads JSON, one flag per YAML document, and a flag as GET shows it (read-only fields ignored)", () => {
    const flag = {
      name: "a",
      namespace: "shop",
      type: "string",
      defaultValue: "x",
      delivery: { sidecar: { selector } },
    };
    expect(parseApplyFile(JSON.stringify([flag]), "local").ok).toBe(true);
    const documents = parseApplyFile(
      `${JSON.stringify(flag)}\n---\n${JSON.stringify({ ...flag, name: "b" })}\n---\n`,
      "local",
    );
    expect(documents.ok && documents.value.map((f) => f.name)).toEqual(["a", "b"]);
    const asShown = {
      ...flag,
      clusterId: "local",
      description: "",
      enabled: false,
      resourceVersion: "12",
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
      status: { phase: "Pending", targets: [], message: "" },
    };
    const shown = parseApplyFile(JSON.stringify(asShown), "local");
    expect(shown.ok && shown.value[0]).toEqual({
      ...flag,
      clusterId: "local",
      description: "",
      enabled: false,
    });
  });

  it("names every problem by [index].field and its flag; a duplicate is named too", () => {
    const result = parseApplyFile(
      JSON.stringify([
        {
          name: "a",
          namespace: "shop",
          type: "boolean",
          defaultValue: "true",
          delivery: { sidecar: { selector } },
        },
        {
          name: "b",
          namespace: "shop",
          type: "boolean",
          defaultValue: "maybe",
          delivery: { sidecar: { selector } },
        },
        { name: "c", namespace: "shop", type: "string", defaultValue: "x", delivery: {}, colour: "red" },
        "not a flag",
        {
          name: "a",
          namespace: "shop",
          type: "boolean",
          defaultValue: "false",
          delivery: { sidecar: { selector } },
        },
      ]),
      "local",
    );
    expect(result.ok ? [] : result.errors).toEqual([
      { field: "[1].defaultValue", message: "must be true or false for a boolean flag (flag shop/b)" },
      { field: "[2].colour", message: "is not a known field (flag shop/c)" },
      {
        field: "[2].delivery",
        message: expect.stringContaining("exactly one of envVar, configMap or sidecar") as string,
      },
      { field: "[3]", message: "must be a flag (a mapping of its fields)" },
      { field: "[4].name", message: "a is also flag [0]" },
    ]);
  });

  it("refuses a file that is not YAML or holds no flag", () => {
    const broken = parseApplyFile("- name: a\n  namespace: [shop\n", "local");
    expect(!broken.ok && broken.errors[0]?.message).toMatch(/^not YAML or JSON: /);
    expect(parseApplyFile("", "local")).toEqual({
      ok: false,
      errors: [{ field: "", message: "holds no flag" }],
    });
    expect(parseApplyFile("[]", "local").ok).toBe(false);
  });
});
