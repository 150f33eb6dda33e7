import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allCrds, renderCrdYaml, toStructuralSchema, type JSONSchemaProps } from "../src/index.ts";

const crdDir = join(import.meta.dirname, "../../../deploy/crds");

/**
 * Every node of a structural schema states its type (Kubernetes refuses the CRD otherwise), but
 * for one that keeps any JSON (x-kubernetes-preserve-unknown-fields: a flag's metadata values).
 */
function untypedNodes(schema: JSONSchemaProps, path: string): string[] {
  const own =
    schema.type === undefined && schema["x-kubernetes-preserve-unknown-fields"] !== true ? [path] : [];
  const children = [
    ...Object.entries(schema.properties ?? {}).map(([k, v]) => untypedNodes(v, `${path}.${k}`)),
    schema.items ? untypedNodes(schema.items, `${path}[]`) : [],
    schema.additionalProperties ? untypedNodes(schema.additionalProperties, `${path}{}`) : [],
  ];
  return [...own, ...children.flat()];
}

describe("generated CRDs", () => {
  it.each(allCrds().map((c) => [c.metadata.name, c] as const))(
    "deploy/crds/%s.yaml is up to date (run `npm run crds` after changing a schema)",
    (name, definition) => {
      expect(readFileSync(join(crdDir, `${name}.yaml`), "utf8")).toBe(renderCrdYaml(definition));
    },
  );

  it("are structural: typed nodes, no keywords Kubernetes refuses", () => {
    for (const definition of allCrds()) {
      const schema = definition.spec.versions[0]?.schema.openAPIV3Schema;
      expect(schema).toBeDefined();
      if (!schema) continue;
      expect(untypedNodes(schema, "")).toEqual([]);
      const text = JSON.stringify(schema);
      for (const refused of ['additionalProperties":false', "uniqueItems", "errorMessage", "anyOf", "$id"]) {
        expect(text).not.toContain(refused);
      }
    }
  });

  it("keeps CEL rules and list types from the schemas", () => {
    const out = toStructuralSchema({
      type: "array",
      uniqueItems: true,
      "x-kubernetes-list-type": "set",
      items: { enum: ["a"], errorMessage: "x" },
    });
    expect(out).toEqual({
      type: "array",
      "x-kubernetes-list-type": "set",
      items: { type: "string", enum: ["a"] },
    });
  });
});
