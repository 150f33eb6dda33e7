import { describe, expect, it } from "vitest";
import type { EvaluationContext } from "@openfeature/core";
import { compileFlag, evaluateFlag } from "@svc/core/targeting/flagd";
import { evaluatedSpecOf, type SidecarFlag } from "../src/sidecar-flag.ts";
import {
  bulkBody,
  etagOf,
  CONTEXT_LIMITS,
  evaluationFailure,
  flagNotFound,
  ifNoneMatchHits,
  parseEvaluationRequest,
  renderEvaluation,
  typedValueText,
} from "../src/ofrep.ts";

const flag = (type: SidecarFlag["type"], value: string, disabled = false): SidecarFlag => ({
  name: "f",
  key: "f",
  type,
  value,
  disabled,
});

describe("typedValueText", () => {
  it("gives each type its JSON form, keeping 64-bit integers exact in the text", () => {
    expect(typedValueText(flag("boolean", "false"))).toBe("false");
    expect(typedValueText(flag("integer", "-9223372036854775808"))).toBe("-9223372036854775808");
    expect(typedValueText(flag("string", 'say "hi"\n'))).toBe('"say \\"hi\\"\\n"');
    expect(typedValueText(flag("json", ' {"a": [1, 2]}\n'))).toBe('{"a": [1, 2]}');
    expect(JSON.parse(typedValueText(flag("json", '{"a": [1, 2]}')) ?? "")).toEqual({ a: [1, 2] });
  });

  it("is undefined for a value that does not parse as its type", () => {
    expect(typedValueText(flag("json", "{not json"))).toBeUndefined();
    expect(typedValueText(flag("integer", "1.5"))).toBeUndefined();
  });
});

/** flagd-core's evaluation of `flag` for `context`, in OFREP's shape. */
function evaluate(flag: SidecarFlag, context: EvaluationContext = {}) {
  return renderEvaluation(
    flag,
    evaluateFlag(flag.key, compileFlag(flag.key, evaluatedSpecOf(flag), false), context),
  );
}

const split: SidecarFlag = {
  ...flag("integer", "9223372036854775807"),
  key: "my.Flag_X",
  variants: { big: "9223372036854775807", small: "1" },
  defaultVariant: "big",
  targeting: { if: [{ "==": [{ var: "tier" }, "free"] }, "small", null] },
  metadata: { owner: "team-a" },
};

describe("renderEvaluation", () => {
  it("STATIC with the default variant's value, its name and the metadata for a flag without rules", () => {
    expect(evaluate(flag("integer", "42"))).toEqual({
      status: 200,
      text: '{"key":"f","value":42,"variant":"default","reason":"STATIC","metadata":{}}',
    });
    expect(JSON.parse(evaluate(flag("boolean", "true")).text)).toEqual({
      key: "f",
      value: true,
      variant: "default",
      reason: "STATIC",
      metadata: {},
    });
  });

  it("TARGETING_MATCH and DEFAULT by the context, under the flag's key, integers digit for digit", () => {
    expect(evaluate(split, { tier: "free" }).text).toBe(
      '{"key":"my.Flag_X","value":1,"variant":"small","reason":"TARGETING_MATCH","metadata":{"owner":"team-a"}}',
    );
    expect(evaluate(split, { tier: "gold" }).text).toContain(
      '"value":9223372036854775807,"variant":"big","reason":"DEFAULT"',
    );
  });

  it("GENERAL (400) with flagd-core's details for a rule naming a variant the flag lacks", () => {
    const missing = { ...split, targeting: { if: [true, "nowhere"] } };
    expect(evaluate(missing)).toEqual({
      status: 400,
      text: JSON.stringify({
        key: "my.Flag_X",
        errorCode: "GENERAL",
        errorDetails: "Variant 'nowhere' not found in flag with key 'my.Flag_X'",
        metadata: { owner: "team-a" },
      }),
    });
  });

  it("DISABLED without a value (the caller's code default applies) for a disabled flag", () => {
    expect(JSON.parse(evaluate(flag("boolean", "true", true)).text)).toEqual({
      key: "f",
      reason: "DISABLED",
      metadata: {},
    });
  });

  it("PARSE_ERROR (400) for a value that does not parse", () => {
    const result = evaluate(flag("json", "{"));
    expect(result.status).toBe(400);
    expect(JSON.parse(result.text)).toMatchObject({ key: "f", errorCode: "PARSE_ERROR" });
  });

  it("FLAG_NOT_FOUND for an unknown key", () => {
    expect(JSON.parse(flagNotFound("nope", "shop"))).toEqual({
      key: "nope",
      errorCode: "FLAG_NOT_FOUND",
      errorDetails: "flag nope not found in namespace shop",
      metadata: {},
    });
  });
});

describe("bulk body and ETag", () => {
  it("wraps the evaluations in {flags: [...]}", () => {
    const eventStreams = [{ type: "sse", endpoint: { requestUri: "/events" } }];
    expect(JSON.parse(bulkBody([evaluate(flag("string", "x")).text], "/events"))).toEqual({
      flags: [{ key: "f", reason: "STATIC", value: "x", variant: "default", metadata: {} }],
      eventStreams,
    });
    expect(JSON.parse(bulkBody([], "/events"))).toEqual({ flags: [], eventStreams });
  });

  it("derives a strong ETag from the content only", () => {
    expect(etagOf("abc")).toBe(etagOf(Buffer.from("abc")));
    expect(etagOf("abc")).not.toBe(etagOf("abd"));
    expect(etagOf("abc")).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  });

  it("matches If-None-Match: exact, weak, in a list, or *", () => {
    const tag = etagOf("abc");
    expect(ifNoneMatchHits(undefined, tag)).toBe(false);
    expect(ifNoneMatchHits(tag, tag)).toBe(true);
    expect(ifNoneMatchHits(`W/${tag}`, tag)).toBe(true);
    expect(ifNoneMatchHits(`"other", ${tag}`, tag)).toBe(true);
    expect(ifNoneMatchHits("*", tag)).toBe(true);
    expect(ifNoneMatchHits('"other"', tag)).toBe(false);
  });
});

describe("parseEvaluationRequest", () => {
  it("reads the context of an object body; no body or no context is the empty context", () => {
    expect(parseEvaluationRequest('{"context": {"targetingKey": "u", "tier": ["a"]}}')).toEqual({
      context: { targetingKey: "u", tier: ["a"] },
    });
    for (const body of ["{}", '{"other": 1}', "", "  \n"]) {
      expect(parseEvaluationRequest(body), body).toEqual({ context: {} });
    }
  });

  it("names what is wrong with any other body", () => {
    const problem = (body: string) => (parseEvaluationRequest(body) as { problem?: string }).problem;
    expect(problem("{not json")).toBe("the request body is not JSON");
    for (const body of ["[]", "null", "3", '"x"']) {
      expect(problem(body), body).toBe('the request body must be a JSON object such as {"context": {}}');
    }
    for (const body of ['{"context": "u"}', '{"context": null}', '{"context": []}']) {
      expect(problem(body), body).toBe("context must be a JSON object");
    }
    expect(problem('{"context": {"targetingKey": 7}}')).toBe("context.targetingKey must be a string");
    expect(problem('{"context": {"a": {"__proto__": {"x": 1}}}}')).toBe(
      'context.a: the key "__proto__" is not allowed in a context',
    );
    expect(problem('{"context": {"constructor": 1}}')).toBe(
      'context: the key "constructor" is not allowed in a context',
    );
    const nested = `{"context": {"a": ${"[".repeat(20)}${"]".repeat(20)}}}`;
    expect(problem(nested)).toMatch(/^context\.a(\[0\])+: context is nested deeper than 8 levels$/);
    const wide = JSON.stringify({
      context: Object.fromEntries(Array.from({ length: 1_001 }, (_, n) => [`a${n}`, n])),
    });
    expect(problem(wide)).toBe(`context has more than ${CONTEXT_LIMITS.values} values`);
    const long = JSON.stringify({ context: { email: "x".repeat(CONTEXT_LIMITS.stringLength + 1) } });
    expect(problem(long)).toBe("context.email is longer than 4096 characters");
  });

  it("accepts a context at every limit", () => {
    const atLimits = {
      targetingKey: "x".repeat(CONTEXT_LIMITS.stringLength),
      deep: JSON.parse(
        `${"[".repeat(CONTEXT_LIMITS.depth - 1)}${"]".repeat(CONTEXT_LIMITS.depth - 1)}`,
      ) as unknown,
      ...Object.fromEntries(Array.from({ length: CONTEXT_LIMITS.values - 9 }, (_, n) => [`a${n}`, n])),
    };
    expect(parseEvaluationRequest(JSON.stringify({ context: atLimits }))).toEqual({ context: atLimits });
  });
});

describe("evaluationFailure", () => {
  it("has the key for a single evaluation and none for the bulk one", () => {
    expect(JSON.parse(evaluationFailure("f", "INVALID_CONTEXT", "why"))).toEqual({
      key: "f",
      errorCode: "INVALID_CONTEXT",
      errorDetails: "why",
    });
    expect(JSON.parse(evaluationFailure(undefined, "GENERAL", "why"))).toEqual({
      errorCode: "GENERAL",
      errorDetails: "why",
    });
  });
});
