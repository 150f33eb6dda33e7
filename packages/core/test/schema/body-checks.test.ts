// The generated body checks (packages/core/scripts/body-checks.ts): up to date, plain code with no
// TypeBox at run time, and answering as the API's checker (TypeBox's Compile of the same schema).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import type { TSchema } from "typebox";
import Compile from "typebox/compile";
import { describe, expect, it } from "vitest";
import { BODY_CHECK_FILES, renderBodyChecks } from "../../scripts/body-checks.ts";
import { schemaRefusals, unexplainedRefusals, type BodyCheck } from "../../src/schema/body-check.ts";
import { ClusterRegistrationBodyCheck } from "../../src/clusters/cluster-body-checks.generated.ts";
import { FlagCreateBodyCheck } from "../../src/flags/flag-body-checks.generated.ts";
import { RolloutCreateBodyCheck } from "../../src/rollouts/rollout-body-checks.generated.ts";
import { CreateUserBodyCheck, UpdateUserBodyCheck } from "../../src/users/user-body-checks.generated.ts";
import { WebhookBodyCheck } from "../../src/webhooks/webhook-body-checks.generated.ts";

const core = join(import.meta.dirname, "../..");
const GENERATED: Record<string, BodyCheck<unknown>> = {
  FlagCreateBody: FlagCreateBodyCheck,
  CreateUserBody: CreateUserBodyCheck,
  UpdateUserBody: UpdateUserBodyCheck,
  WebhookBody: WebhookBodyCheck,
  RolloutCreateBody: RolloutCreateBodyCheck,
  ClusterRegistrationBody: ClusterRegistrationBodyCheck,
};
const bodies = BODY_CHECK_FILES.flatMap((file) => file.bodies);

describe("generated body checks", () => {
  it.each(BODY_CHECK_FILES.map((file) => [file.path, file] as const))(
    "%s is up to date (run `npm run validators` after changing a schema)",
    (path, file) => {
      expect(readFileSync(join(core, path), "utf8")).toBe(renderBodyChecks(file));
    },
  );

  it.each([
    ...BODY_CHECK_FILES.map((file) => [file.path] as const),
    ["src/schema/compiled-check-helpers.ts"] as const,
  ])("%s imports no TypeBox and compiles no code at run time", (path) => {
    const text = readFileSync(join(core, path), "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/^\s*\/\/.*$/gm, "");
    const runtimeImports = [...text.matchAll(/^import (?!type )[^;]* from "([^"]+)";$/gm)].map((m) => m[1]);
    expect(runtimeImports.filter((from) => from !== "../schema/compiled-check-helpers.ts")).toEqual([]);
    expect(text).not.toMatch(/typebox|\beval\b|\bFunction\(|\bimport\(/);
  });

  it("cover every body the table names", () => {
    expect(Object.keys(GENERATED).sort()).toEqual(bodies.map((body) => body.name).sort());
  });

  const VALID: Record<string, unknown> = {
    FlagCreateBody: {
      name: "checkout",
      namespace: "shop",
      clusterId: "local",
      type: "boolean",
      defaultValue: "true",
      delivery: { envVar: { selector: { matchLabels: { app: "web" } } } },
    },
    CreateUserBody: {
      username: "ada",
      password: "correct horse",
      role: "none",
      grants: [{ role: "editor" }],
    },
    UpdateUserBody: { role: "viewer" },
    WebhookBody: {
      name: "ops",
      url: "https://hooks.example/x",
      events: ["flag.created"],
      clusters: ["a", "b"],
    },
    RolloutCreateBody: {
      flag: { namespace: "shop", name: "checkout" },
      change: { enabled: true },
      waves: [
        { clusters: ["local"] },
        { clusterSelector: { matchLabels: { region: "eu" } }, bakeSeconds: 60 },
      ],
    },
    ClusterRegistrationBody: {
      id: "east",
      displayName: "East",
      apiServer: "https://10.0.0.1:6443",
      authMethod: "serviceaccount",
      token: "t",
    },
  };

  it.each(bodies.map((body) => [body.name, body.schema] as const))(
    "%s accepts what the API accepts",
    (name, schema) => {
      const valid = VALID[name];
      expect(Compile(schema).Check(valid)).toBe(true);
      expect(GENERATED[name]?.check(valid)).toBe(true);
    },
  );

  /** Values near and across a schema's bounds: strings of every length class, lists, objects. */
  const valueOf = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.string({ maxLength: 80, unit: "grapheme-ascii" }),
    fc.stringMatching(/^[a-z][a-z0-9-]{0,70}$/),
    fc.constantFrom("boolean", "json", "admin", "none", "kubeconfig", "flag.created", "x".repeat(1025)),
    fc.array(fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/), { maxLength: 4 }),
    fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.stringMatching(/^[a-z]{0,8}$/), { maxKeys: 3 }),
  );

  it.each(bodies.map((body) => [body.name, body.schema] as const))(
    "%s answers as the API's checker, for the body and each field",
    (name, schema: TSchema) => {
      const generated = GENERATED[name];
      if (generated === undefined) throw new Error(`no generated check of ${name}`);
      const api = Compile(schema);
      const properties = (schema as { properties: Record<string, TSchema> }).properties;
      const fields = Object.keys(properties);
      const body = fc.dictionary(fc.constantFrom(...fields, "unknown"), valueOf, {
        maxKeys: fields.length + 1,
      });
      fc.assert(
        fc.property(body, (value) => {
          expect(generated.check(value)).toBe(api.Check(value));
          for (const [field, fieldValue] of Object.entries(value)) {
            const property = properties[field];
            const own = generated.fields[field];
            if (property === undefined || own === undefined) continue;
            expect(own.check(fieldValue)).toBe(Compile(property).Check(fieldValue));
          }
        }),
        { numRuns: 300 },
      );
    },
  );
});

describe("schemaRefusals", () => {
  it("names each refused field, a missing one and an unknown one; nothing when the schema takes it", () => {
    const body = { name: "ops", url: "", events: [], colour: "red", format: undefined };
    expect(schemaRefusals(WebhookBodyCheck, body)).toEqual({
      url: "refused by the API's schema: 1 to 2048 characters",
      events: expect.stringMatching(/^refused by the API's schema: at least 1 item/) as string,
      colour: "is not a field the API takes",
    });
    expect(schemaRefusals(WebhookBodyCheck, { name: "ops" })).toEqual({
      url: "is required",
      events: "is required",
    });
    expect(schemaRefusals(WebhookBodyCheck, [])).toEqual({ "": "the body must be a JSON object" });
    expect(
      schemaRefusals(WebhookBodyCheck, { name: "ops", url: "https://x", events: ["flag.created"] }),
    ).toEqual({});
  });

  it("leaves out what the form's own problems explain, a field's parts included", () => {
    const refusals = { delivery: "r1", name: "r2", "": "r3", description: "r4" };
    expect(unexplainedRefusals(refusals, ["delivery.envVar.name", "name"])).toEqual([
      ["", "r3"],
      ["description", "r4"],
    ]);
  });
});
