import { describe, expect, it } from "vitest";
import type { SidecarFlag } from "../src/sidecar-flag.ts";
import {
  bulkBody,
  etagOf,
  evaluate,
  evaluationFailure,
  evaluationRequestProblem,
  flagNotFound,
  ifNoneMatchHits,
  typedValueText,
} from "../src/ofrep.ts";

const flag = (type: SidecarFlag["type"], value: string, disabled = false): SidecarFlag => ({
  name: "f",
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

describe("evaluate", () => {
  it("STATIC with the typed value for an enabled flag", () => {
    expect(evaluate(flag("integer", "42"))).toEqual({
      status: 200,
      text: '{"key":"f","reason":"STATIC","value":42}',
    });
    expect(JSON.parse(evaluate(flag("boolean", "true")).text)).toEqual({
      key: "f",
      reason: "STATIC",
      value: true,
    });
  });

  it("DISABLED without a value (the caller's code default applies) for a disabled flag", () => {
    expect(JSON.parse(evaluate(flag("boolean", "true", true)).text)).toEqual({
      key: "f",
      reason: "DISABLED",
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
    });
  });
});

describe("bulk body and ETag", () => {
  it("wraps the evaluations in {flags: [...]}", () => {
    expect(JSON.parse(bulkBody([evaluate(flag("string", "x")).text]))).toEqual({
      flags: [{ key: "f", reason: "STATIC", value: "x" }],
    });
    expect(JSON.parse(bulkBody([]))).toEqual({ flags: [] });
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

describe("evaluationRequestProblem", () => {
  it("accepts an object with or without a context object, and an empty body", () => {
    for (const body of ['{"context": {"targetingKey": "u"}}', "{}", '{"other": 1}', "", "  \n"]) {
      expect(evaluationRequestProblem(body), body).toBeUndefined();
    }
  });

  it("names what is wrong with any other body", () => {
    expect(evaluationRequestProblem("{not json")).toBe("the request body is not JSON");
    for (const body of ["[]", "null", "3", '"x"']) {
      expect(evaluationRequestProblem(body), body).toBe(
        'the request body must be a JSON object such as {"context": {}}',
      );
    }
    for (const body of ['{"context": "u"}', '{"context": null}', '{"context": []}']) {
      expect(evaluationRequestProblem(body), body).toBe("context must be a JSON object");
    }
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
