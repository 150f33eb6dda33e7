import type { TSchema } from "typebox";
import Value from "typebox/value";
import { fieldPath, type FieldError } from "./field-errors.ts";

export { describeErrors, fieldPath, validOrThrow, type FieldError, type Validated } from "./field-errors.ts";

function pointerToField(pointer: string): string {
  return pointer
    .split("/")
    .slice(1)
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
    .join(".");
}

/** Resolves "#/properties/a/additionalProperties" inside `root`. */
function schemaAt(root: TSchema, schemaPath: string): Record<string, unknown> | undefined {
  let node: unknown = root;
  for (const part of schemaPath.replace(/^#\/?/, "").split("/")) {
    if (part === "") continue;
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === "object" && node !== null ? (node as Record<string, unknown>) : undefined;
}

interface RawError {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

function messageFor(error: RawError, schema: Record<string, unknown> | undefined): string {
  const custom = schema?.["errorMessage"];
  const p = error.params;
  switch (error.keyword) {
    case "type":
      return `must be ${String(p["type"]) === "integer" ? "an integer" : `a ${String(p["type"])}`}`;
    case "enum":
      return `must be one of: ${(p["allowedValues"] as unknown[]).map(String).join(", ")}`;
    case "maxLength":
      return `must be at most ${String(p["limit"])} characters`;
    case "minLength":
      return Number(p["limit"]) === 1
        ? "must not be empty"
        : `must be at least ${String(p["limit"])} characters`;
    case "minimum":
    case "maximum":
      return typeof schema?.["minimum"] === "number" && typeof schema["maximum"] === "number"
        ? `must be between ${schema["minimum"]} and ${schema["maximum"]}`
        : `must be ${String(p["comparison"])} ${String(p["limit"])}`;
    case "maxItems":
      return `must have at most ${String(p["limit"])} items`;
    case "minProperties":
    case "maxProperties":
      if (typeof custom === "string") return custom;
      return error.keyword === "minProperties"
        ? `must have at least ${String(p["limit"])} entries`
        : `must have at most ${String(p["limit"])} entries`;
    default:
      return typeof custom === "string" ? custom : error.message;
  }
}

/**
 * Checks `value` against a schema and returns every problem with a message a person can act on,
 * each naming its field. Unknown fields are reported as such.
 */
export function schemaErrors(schema: TSchema, value: unknown, prefix = ""): FieldError[] {
  const errors: FieldError[] = [];
  for (const raw of Value.Errors(schema, value) as unknown as RawError[]) {
    const at = pointerToField(raw.instancePath);
    // TypeBox reports an unknown field twice: as "additionalProperties" on the object, which we
    // keep, and as a "schema is false" on the field itself, which we drop.
    if (raw.keyword === "boolean" && raw.schemaPath.endsWith("/additionalProperties")) continue;
    if (raw.keyword === "required") {
      for (const name of raw.params["requiredProperties"] as string[]) {
        errors.push({ field: fieldPath(prefix, fieldPath(at, name)), message: "is required" });
      }
      continue;
    }
    if (raw.keyword === "additionalProperties") {
      for (const name of raw.params["additionalProperties"] as string[]) {
        errors.push({ field: fieldPath(prefix, fieldPath(at, name)), message: "is not a known field" });
      }
      continue;
    }
    errors.push({ field: fieldPath(prefix, at), message: messageFor(raw, schemaAt(schema, raw.schemaPath)) });
  }
  // One message per field: a value can break several keywords (pattern and length) at once.
  return errors.filter((e, i) => errors.findIndex((other) => other.field === e.field) === i);
}
