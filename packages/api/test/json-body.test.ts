import { describe, expect, it } from "vitest";
import { parseJsonBody } from "../src/http/json-body.ts";

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
});
