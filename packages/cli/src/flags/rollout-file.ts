// The file of `svc flags rollout create -f`, read and checked before any request (pure:
// unit-tested): one plan, YAML or JSON, in the body shape of POST /api/v1/rollouts (the spec's
// fields and an optional `name`), or as `rollout get -o yaml` prints a plan (`name` and `spec`;
// its `author`, `createdAt`, `status` and the actions taken on it, `paused`, `abort` and
// `skipBake`, are ignored). The spec is checked with core's own
// validateRolloutSpec, so a bad file names the field in the API's words.
import { isDns1123Label, validateRolloutSpec, type FieldError, type Validated } from "@svc/core";
import { parseAllDocuments } from "yaml";
import type { PlanBody } from "./rollout-parse.ts";

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The file's one non-empty document. */
function documentOf(text: string): Validated<unknown> {
  const documents = parseAllDocuments(text);
  const values: unknown[] = [];
  for (const document of Array.isArray(documents) ? documents : []) {
    const [error] = document.errors;
    if (error !== undefined)
      return {
        ok: false,
        errors: [{ field: "", message: `not YAML or JSON: ${error.message.split("\n")[0] ?? ""}` }],
      };
    const value: unknown = document.toJS();
    if (value !== null && value !== undefined) values.push(value);
  }
  if (values.length === 0) return { ok: false, errors: [{ field: "", message: "holds no plan" }] };
  if (values.length > 1)
    return {
      ok: false,
      errors: [{ field: "", message: `holds ${values.length} documents: one plan per file` }],
    };
  return { ok: true, value: values[0] };
}

/** YAML reads `defaultValue: true` or `42` as a boolean or number; the field is text, as the file shows it. */
function textScalar(value: unknown): unknown {
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  return value;
}

/** Spec fields the API's actions set (pause, resume, abort, skip-bake). */
const ACTIONS = ["paused", "abort", "skipBake"];

/** The plan's name and spec, from either shape. */
function partsOf(item: Record<string, unknown>): { name: unknown; spec: unknown } {
  if (!Object.hasOwn(item, "spec")) {
    const { name, ...spec } = item;
    return { name, spec };
  }
  const metadata = isObject(item["metadata"]) ? item["metadata"] : {};
  const spec = item["spec"];
  if (!isObject(spec)) return { name: item["name"] ?? metadata["name"], spec };
  // What was done to the printed plan is not part of a new one.
  const plan = Object.entries(spec).filter(([field]) => !ACTIONS.includes(field));
  return { name: item["name"] ?? metadata["name"], spec: Object.fromEntries(plan) };
}

/** The request body the file holds, or every problem of it (by field; the spec's fields unprefixed). */
export function parsePlanFile(text: string): Validated<PlanBody> {
  const document = documentOf(text);
  if (!document.ok) return document;
  if (!isObject(document.value))
    return { ok: false, errors: [{ field: "", message: "must be a plan (a mapping of its fields)" }] };
  const { name, spec } = partsOf(document.value);
  const errors: FieldError[] = [];
  if (name !== undefined && (typeof name !== "string" || !isDns1123Label(name)))
    errors.push({
      field: "name",
      message: "must be a DNS-1123 label (lowercase letters, digits and '-', at most 63)",
    });
  if (isObject(spec) && isObject(spec["change"]) && Object.hasOwn(spec["change"], "defaultValue"))
    spec["change"] = { ...spec["change"], defaultValue: textScalar(spec["change"]["defaultValue"]) };
  const validated = validateRolloutSpec(spec);
  if (!validated.ok) errors.push(...validated.errors);
  if (errors.length > 0 || !validated.ok) return { ok: false, errors };
  return { ok: true, value: { ...(typeof name === "string" ? { name } : {}), ...validated.value } };
}
