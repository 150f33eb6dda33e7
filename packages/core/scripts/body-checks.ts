// The REST request bodies the dashboard's forms send, compiled ahead of time by TypeBox into plain
// functions (`*.generated.ts` beside each schema): the dashboard checks a body against the API's
// own schema before sending it, with no TypeBox and no eval in the browser (its CSP forbids
// eval). generate-validators.ts writes the files; a unit test fails when one is stale.
import type { TSchema } from "typebox";
import { Build } from "typebox/schema";
import { ClusterRegistrationBody } from "../src/clusters/cluster-registration.ts";
import { FlagCreateBody } from "../src/flags/flag-view.ts";
import { RolloutCreateBody } from "../src/rollouts/rollout-view.ts";
import { CreateUserBody, UpdateUserBody } from "../src/users/user-view.ts";
import { WebhookBody } from "../src/webhooks/webhook-view.ts";

export interface CompiledBody {
  /** The schema's exported name; the check is exported as `<name>Check`. */
  name: string;
  schema: TSchema;
}

export interface BodyCheckFile {
  /** From packages/core. */
  path: string;
  /** The module (beside the generated file) that exports each schema and its type. */
  from: string;
  bodies: CompiledBody[];
}

/**
 * One file per feature, beside its schemas. A PUT that takes the same body as its POST plus the
 * view's read-only fields (a flag's resourceVersion, a webhook's id) is checked by the POST's
 * schema: the update's accepts every body the create's does.
 */
export const BODY_CHECK_FILES: BodyCheckFile[] = [
  {
    path: "src/flags/flag-body-checks.generated.ts",
    from: "./flag-view.ts",
    bodies: [{ name: "FlagCreateBody", schema: FlagCreateBody }],
  },
  {
    path: "src/users/user-body-checks.generated.ts",
    from: "./user-view.ts",
    bodies: [
      { name: "CreateUserBody", schema: CreateUserBody },
      { name: "UpdateUserBody", schema: UpdateUserBody },
    ],
  },
  {
    path: "src/webhooks/webhook-body-checks.generated.ts",
    from: "./webhook-view.ts",
    bodies: [{ name: "WebhookBody", schema: WebhookBody }],
  },
  {
    path: "src/rollouts/rollout-body-checks.generated.ts",
    from: "./rollout-view.ts",
    bodies: [{ name: "RolloutCreateBody", schema: RolloutCreateBody }],
  },
  {
    path: "src/clusters/cluster-body-checks.generated.ts",
    from: "./cluster-registration.ts",
    bodies: [{ name: "ClusterRegistrationBody", schema: ClusterRegistrationBody }],
  },
];

/** What the compiled code may call besides itself: the helpers of compiled-check-helpers.ts. */
const HELPERS = new Set(["Guard.CodePointCount", "Hashing.Hash"]);

/** A regular expression as a literal that builds the same one. */
function regexLiteral(value: unknown): string {
  if (!(value instanceof RegExp))
    throw new Error(`a compiled check needs a ${typeof value} value: only patterns are supported`);
  const literal = String(value);
  const again = new RegExp(value.source, value.flags);
  if (literal !== String(again)) throw new Error(`pattern ${literal} does not read back as a literal`);
  return literal;
}

/** One schema's check as an expression: a function built once at load, plain code (no eval). */
export function compiledCheck(schema: TSchema): string {
  const build = Build(schema);
  if (build.UseUnevaluated()) throw new Error("unevaluatedProperties/Items need TypeBox at run time");
  const external = build.External();
  const functions = build.Functions();
  const code = [...functions, build.Entry()].join("\n");
  for (const call of code.match(/\b(?:Guard|Hashing|CheckContext)\.\w+/g) ?? []) {
    if (!HELPERS.has(call))
      throw new Error(`the compiled check calls ${call}, which compiled-check-helpers.ts lacks`);
  }
  const constants = external.variables.map(regexLiteral).join(", ");
  return [
    "(() => {",
    `  const ${external.identifier} = [${constants}];`,
    ...functions.map((fn) => `  ${fn};`),
    `  return (value) => ${build.Entry()};`,
    "})()",
  ].join("\n");
}

function phrase(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/**
 * A property schema's bounds in a few words, for the message of a refused field: its own
 * errorMessage or its limits, when it is a value or a list of values. An object's (or a list of
 * objects') refusal can come from any part of it: no words then, rather than wrong ones.
 */
export function boundsOf(schema: TSchema): string {
  const s = schema as Record<string, unknown>;
  if (typeof s["errorMessage"] === "string" && isValue(schema)) return s["errorMessage"];
  if (s["type"] === "array") {
    const items = typeof s["items"] === "object" ? boundsOf(s["items"] as TSchema) : "";
    const own = limits(s);
    if (items === "" && !isValue(s["items"])) return "";
    return [own, items === "" ? "" : `each ${items}`].filter((part) => part !== "").join("; ");
  }
  return isValue(schema) ? limits(s) : "";
}

function isValue(schema: unknown): boolean {
  const s = (schema ?? {}) as Record<string, unknown>;
  return Array.isArray(s["enum"]) || ["string", "integer", "number", "boolean"].includes(String(s["type"]));
}

function limits(s: Record<string, unknown>): string {
  const num = (key: string) => (typeof s[key] === "number" ? s[key] : undefined);
  const parts: string[] = [];
  const range = (min: number | undefined, max: number | undefined, unit: string) => {
    if (min !== undefined && max !== undefined) parts.push(`${min} to ${phrase(max, unit)}`);
    else if (max !== undefined) parts.push(`at most ${phrase(max, unit)}`);
    else if (min !== undefined) parts.push(`at least ${phrase(min, unit)}`);
  };
  if (Array.isArray(s["enum"])) parts.push(`one of ${s["enum"].join(", ")}`);
  if (s["type"] === "string") range(num("minLength"), num("maxLength"), "character");
  if (s["type"] === "array") range(num("minItems"), num("maxItems"), "item");
  if (s["uniqueItems"] === true) parts.push("none twice");
  if (s["type"] === "integer" || s["type"] === "number") {
    const whole = s["type"] === "integer" ? "a whole number" : "a number";
    const [min, max] = [num("minimum"), num("maximum")];
    parts.push(min !== undefined && max !== undefined ? `${whole} from ${min} to ${max}` : whole);
  }
  return parts.join(", ");
}

function bodyCheck({ name, schema }: CompiledBody): string {
  const object = schema as Record<string, unknown>;
  const properties = object["properties"] as Record<string, TSchema> | undefined;
  if (object["type"] !== "object" || properties === undefined)
    throw new Error(`${name} is not an object schema`);
  const required = (object["required"] as string[] | undefined) ?? [];
  const fields = Object.entries(properties).map(
    ([field, property]) =>
      `    ${JSON.stringify(field)}: {\n      bounds: ${JSON.stringify(boundsOf(property))},\n      check: ${compiledCheck(property).replaceAll("\n", "\n      ")},\n    },`,
  );
  return [
    `/** ${name} as the API checks it: the whole body, and each field on its own. */`,
    `export const ${name}Check: BodyCheck<${name}> = {`,
    `  check: ${compiledCheck(schema).replaceAll("\n", "\n  ")},`,
    "  fields: {",
    ...fields,
    "  },",
    `  required: ${JSON.stringify(required)},`,
    "};",
  ].join("\n");
}

/** The text of one generated file. */
export function renderBodyChecks(file: BodyCheckFile): string {
  const names = file.bodies.map((body) => body.name);
  const checks = file.bodies.map(bodyCheck).join("\n\n");
  const helpers = ["Guard", "Hashing"].filter((helper) => checks.includes(`${helper}.`));
  return [
    "// Generated by `npm run validators` (packages/core/scripts/generate-validators.ts) from the",
    `// TypeBox schemas of ${file.from} with TypeBox's ahead-of-time compiler. Do not edit: change the`,
    "// schema there and regenerate. Plain functions: nothing of TypeBox, nothing compiled at run time.",
    "// @ts-nocheck",
    'import type { BodyCheck } from "../schema/body-check.ts";',
    ...(helpers.length === 0
      ? []
      : [`import { ${helpers.join(", ")} } from "../schema/compiled-check-helpers.ts";`]),
    `import type { ${names.join(", ")} } from "${file.from}";`,
    "",
    checks,
    "",
  ].join("\n");
}
