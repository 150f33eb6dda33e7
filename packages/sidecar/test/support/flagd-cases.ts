// flagd flag definitions and the contexts to evaluate them with, for the compatibility test:
// every operator of flagd's JSON Logic, fractional with default and custom bucketing, nested
// and $ref rules, $flagd properties, missing attributes, disabled flags, type mismatches, a
// variant the flag lacks, a rule flagd-core cannot parse. Written as a flagd user writes them.
import type { EvaluationContext, JsonValue } from "@openfeature/server-sdk";

/** A flag in flagd's definition format. */
export interface FlagdFlag {
  state: "ENABLED" | "DISABLED";
  variants: Record<string, JsonValue>;
  defaultVariant: string;
  targeting?: Record<string, unknown>;
  metadata?: Record<string, string | number | boolean>;
}

export type SdkType = "boolean" | "string" | "number" | "object";

export interface FlagdCase {
  key: string;
  flag: FlagdFlag;
  contexts: EvaluationContext[];
  /** Evaluated through the SDK as another type than the flag's own (a type mismatch). */
  askAs?: SdkType;
}

export const EVALUATORS: Record<string, unknown> = {
  isAcme: { in: ["@acme.com", { var: "email" }] },
  isAdmin: { starts_with: [{ var: "email" }, "admin"] },
};

const colours = { red: "red", blue: "blue", green: "green" };
const matchMiss = { match: "match", miss: "miss" };
const onOff = { on: true, off: false };
const rule = (targeting: Record<string, unknown>, variants: Record<string, JsonValue> = matchMiss) => ({
  state: "ENABLED" as const,
  variants,
  defaultVariant: Object.keys(variants)[Object.keys(variants).length - 1] ?? "",
  targeting,
});
const ifMatch = (condition: unknown) => rule({ if: [condition, "match", "miss"] });

const emails: EvaluationContext[] = [
  { email: "a@acme.com" },
  { email: "admin@other.io" },
  { email: "b@other.io" },
  {},
];
const users: EvaluationContext[] = Array.from({ length: 40 }, (_, n) => ({ targetingKey: `user-${n}` }));
const versions: EvaluationContext[] = [
  "1.2.3",
  "1.2.4",
  "1.3.0",
  "2.0.0",
  "1.2.2",
  "0.9.9",
  "v1.2.3",
  "1.2",
  "not-a-version",
].map((version) => ({ version }));

const SEM_VER_OPERATORS = ["=", "!=", "<", "<=", ">", ">=", "^", "~"];

export const CASES: FlagdCase[] = [
  { key: "static-bool", flag: { state: "ENABLED", variants: onOff, defaultVariant: "on" }, contexts: [{}] },
  {
    key: "static-int",
    flag: { state: "ENABLED", variants: { big: 9007199254740991, small: 1 }, defaultVariant: "small" },
    contexts: [{}],
  },
  {
    key: "if-equals",
    flag: rule({ if: [{ "==": [{ var: "email" }, "a@acme.com"] }, "red", "blue"] }, colours),
    contexts: emails,
  },
  {
    key: "strict-equals",
    flag: ifMatch({ "===": [{ var: "age" }, 18] }),
    contexts: [{ age: 18 }, { age: "18" }, { age: 19 }, {}],
  },
  {
    key: "loose-equals",
    flag: ifMatch({ "==": [{ var: "age" }, 18] }),
    contexts: [{ age: 18 }, { age: "18" }, {}],
  },
  {
    key: "not-equals",
    flag: ifMatch({ "!=": [{ var: "tier" }, "free"] }),
    contexts: [{ tier: "free" }, { tier: "pro" }, {}],
  },
  { key: "in-string", flag: ifMatch({ in: ["@acme.com", { var: "email" }] }), contexts: emails },
  {
    key: "in-array",
    flag: ifMatch({ in: [{ var: "tenant" }, ["t1", "t2", "t3"]] }),
    contexts: [{ tenant: "t2" }, { tenant: "t9" }, { tenant: 2 }, {}],
  },
  { key: "starts-with", flag: ifMatch({ starts_with: [{ var: "email" }, "admin"] }), contexts: emails },
  { key: "ends-with", flag: ifMatch({ ends_with: [{ var: "email" }, "@acme.com"] }), contexts: emails },
  ...SEM_VER_OPERATORS.map((operator) => ({
    key: `sem_ver ${operator}`,
    flag: ifMatch({ sem_ver: [{ var: "version" }, operator, "1.2.3"] }),
    contexts: [...versions, {}],
  })),
  {
    key: "fractional-default",
    flag: rule(
      {
        fractional: [
          ["a", 50],
          ["b", 30],
          ["c", 20],
        ],
      },
      { a: "a", b: "b", c: "c" },
    ),
    contexts: [...users, {}],
  },
  {
    key: "fractional-bucketBy",
    flag: rule(
      { fractional: [{ cat: [{ var: "$flagd.flagKey" }, { var: "email" }] }, ["a", 25], ["b", 75]] },
      { a: "a", b: "b" },
    ),
    contexts: [...users.map((u, n) => ({ ...u, email: `u${n}@x.io` })), {}],
  },
  {
    key: "nested",
    flag: rule(
      {
        if: [
          {
            and: [
              { "==": [{ var: "country" }, "de"] },
              {
                or: [{ starts_with: [{ var: "email" }, "admin"] }, { in: [{ var: "plan" }, ["pro", "ent"]] }],
              },
            ],
          },
          "red",
          { if: [{ "==": [{ var: "country" }, "fr"] }, "blue", null] },
        ],
      },
      colours,
    ),
    contexts: [
      { country: "de", email: "admin@x.io" },
      { country: "de", plan: "ent" },
      { country: "de", plan: "free" },
      { country: "fr" },
      { country: "us" },
      {},
    ],
  },
  {
    key: "ref",
    flag: rule({ if: [{ and: [{ $ref: "isAcme" }, { $ref: "isAdmin" }] }, "on", "off"] }, onOff),
    contexts: [{ email: "admin@acme.com" }, ...emails],
  },
  {
    key: "my.Flag_X",
    flag: ifMatch({ "==": [{ var: "$flagd.flagKey" }, "my.Flag_X"] }),
    contexts: [{}],
  },
  {
    key: "timestamp",
    flag: ifMatch({
      and: [
        { ">": [{ var: "$flagd.timestamp" }, 1_700_000_000] },
        { "<": [{ var: "$flagd.timestamp" }, { var: "until" }] },
      ],
    }),
    contexts: [{ until: 4_000_000_000 }, { until: 1_000 }, {}],
  },
  {
    key: "disabled",
    flag: { ...ifMatch({ "==": [{ var: "tier" }, "pro"] }), state: "DISABLED" },
    contexts: [{ tier: "pro" }, {}],
  },
  { key: "mismatch-string-as-boolean", flag: ifMatch({ "==": [1, 1] }), contexts: [{}], askAs: "boolean" },
  {
    key: "mismatch-int-as-string",
    flag: { state: "ENABLED", variants: { one: 1, two: 2 }, defaultVariant: "one" },
    contexts: [{}],
    askAs: "string",
  },
  {
    key: "json-variants",
    flag: rule(
      { if: [{ "==": [{ var: "tier" }, "pro"] }, "pro", null] },
      { pro: { limits: [10, 20], beta: true }, basic: { limits: [1] } },
    ),
    contexts: [{ tier: "pro" }, {}],
  },
  {
    key: "variant-from-context",
    flag: rule({ var: "pick" }, { a: "a", b: "b" }),
    contexts: [{ pick: "a" }, { pick: "nowhere" }, {}],
  },
  {
    key: "boolean-result",
    flag: rule({ "==": [{ var: "beta" }, true] }, { true: "beta", false: "stable" }),
    contexts: [{ beta: true }, { beta: false }],
  },
  { key: "unknown-operator", flag: ifMatch({ no_such_op: [{ var: "x" }] }), contexts: [{ x: 1 }] },
];
