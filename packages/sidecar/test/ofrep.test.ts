import { describe, expect, it } from "vitest";
import type { SidecarFlag } from "../src/sidecar-flag.ts";
import { bulkBody, etagOf, evaluate, flagNotFound, ifNoneMatchHits, typedValueText } from "../src/ofrep.ts";

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
