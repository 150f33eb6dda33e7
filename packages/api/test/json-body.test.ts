import { describe, expect, it } from "vitest";
import { MAX_BODY_DEPTH, parseJsonBody } from "../src/http/json-body.ts";

describe("JSON request bodies", () => {
  it("parse, and never quote the input in an error", () => {
    expect(parseJsonBody('{"a":[1,{"b":null}]}')).toEqual({ ok: true, value: { a: [1, { b: null }] } });
    expect(parseJsonBody('{"password":"secret-secret')).toEqual({
      ok: false,
      error: "request body is not valid JSON",
    });
  });

  it("name a prototype-reaching key, at any depth", () => {
    expect(parseJsonBody('{"__proto__":{"admin":true}}')).toEqual({
      ok: false,
      error: "__proto__: is not allowed as a key",
    });
    expect(parseJsonBody('{"a":[{"constructor":{"prototype":{}}}]}')).toEqual({
      ok: false,
      error: "a.0.constructor: is not allowed as a key",
    });
    expect(parseJsonBody('{"constructor":"a string is harmless"}').ok).toBe(true);
  });

  it("refuse a body nested deeper than the limit, however deep, and accept one at it", () => {
    const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
    const refused = (at: string) => ({
      ok: false,
      error: `${at} is nested deeper than ${MAX_BODY_DEPTH} levels`,
    });
    expect(parseJsonBody(nested(MAX_BODY_DEPTH)).ok).toBe(true);
    expect(parseJsonBody(nested(MAX_BODY_DEPTH + 1))).toEqual(refused("0.0.0…:"));
    expect(parseJsonBody(nested(100_000))).toEqual(refused("0.0.0…:"));
    // The field is named, so that a rule nested too deep is refused naming targeting.
    expect(parseJsonBody(`{"targeting":${nested(MAX_BODY_DEPTH)}}`)).toEqual(refused("targeting.0.0…:"));
  });
});
