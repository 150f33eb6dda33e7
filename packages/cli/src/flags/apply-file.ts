// The file of `apply -f` and `diff -f`, read and checked before any request (pure: unit-tested):
// YAML or JSON (JSON is YAML), holding flags in the REST API's body shape, each validated with
// core's own validateFlagCreate, so a bad file names the field with the API's own words.
import { validateFlagCreate, type FieldError, type FlagCreate, type Validated } from "@svc/core";
import { parseAllDocuments } from "yaml";

/** Fields of a flag as GET shows it that a file may carry (get -o yaml → edit → apply) and are ignored. */
const READ_ONLY = ["resourceVersion", "createdAt", "updatedAt", "status"];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The documents' flags: a document holds a list of flags or one flag; empty documents are skipped. */
function itemsOf(text: string): Validated<unknown[]> {
  const documents = parseAllDocuments(text);
  if (!Array.isArray(documents)) return { ok: true, value: [] };
  const errors: FieldError[] = [];
  const items: unknown[] = [];
  for (const document of documents) {
    for (const error of document.errors)
      errors.push({ field: "", message: `not YAML or JSON: ${error.message.split("\n")[0] ?? ""}` });
    if (document.errors.length > 0) continue;
    const value: unknown = document.toJS();
    if (value === null || value === undefined) continue;
    if (Array.isArray(value)) items.push(...(value as unknown[]));
    else items.push(value);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: items };
}

/**
 * YAML reads `defaultValue: true` or `defaultValue: 42` as a boolean or number; the API's field
 * is text. Such a scalar is taken as the text the file shows, so the file need not quote it.
 */
function textScalar(value: unknown): unknown {
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  return value;
}

/** One flag of the file as a create body: read-only fields dropped, clusterId defaulted. */
function bodyOf(item: Record<string, unknown>, cluster: string): Record<string, unknown> {
  const body: Record<string, unknown> = { clusterId: cluster };
  for (const [field, value] of Object.entries(item)) {
    if (READ_ONLY.includes(field)) continue;
    body[field] = field === "defaultValue" ? textScalar(value) : value;
  }
  return body;
}

const addressOf = (flag: { clusterId: string; namespace: string; name: string }) =>
  `${flag.clusterId}/${flag.namespace}/${flag.name}`;

/**
 * Every flag of the file, validated; or every problem of the file, each named `[index].field`
 * (index from 0, in file order) and, when the flag has a name, with the flag it concerns.
 * `cluster` is the cluster of flags that name none.
 */
export function parseApplyFile(text: string, cluster: string): Validated<FlagCreate[]> {
  const items = itemsOf(text);
  if (!items.ok) return items;
  if (items.value.length === 0) return { ok: false, errors: [{ field: "", message: "holds no flag" }] };
  const errors: FieldError[] = [];
  const flags: FlagCreate[] = [];
  const seen = new Map<string, number>();
  items.value.forEach((item, index) => {
    if (!isObject(item)) {
      errors.push({ field: `[${index}]`, message: "must be a flag (a mapping of its fields)" });
      return;
    }
    const body = bodyOf(item, cluster);
    const result = validateFlagCreate(body);
    if (!result.ok) {
      const which = typeof body["namespace"] === "string" && typeof body["name"] === "string";
      const suffix = which ? ` (flag ${String(body["namespace"])}/${String(body["name"])})` : "";
      for (const error of result.errors)
        errors.push({
          field: error.field === "" ? `[${index}]` : `[${index}].${error.field}`,
          message: `${error.message}${suffix}`,
        });
      return;
    }
    const address = addressOf(result.value);
    const first = seen.get(address);
    if (first !== undefined) {
      errors.push({ field: `[${index}].name`, message: `${result.value.name} is also flag [${first}]` });
      return;
    }
    seen.set(address, index);
    flags.push(result.value);
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: flags };
}
