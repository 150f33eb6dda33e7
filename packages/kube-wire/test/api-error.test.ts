import { describe, expect, it } from "vitest";
import { KubeApiError, parseStatusBody } from "../src/index.ts";

describe("KubeApiError", () => {
  it("carries the status, the message and the Status reason", () => {
    const error = new KubeApiError(409, "changed since it was read", "Conflict");
    expect(error).toBeInstanceOf(Error);
    expect([error.status, error.message, error.reason, error.name]).toEqual([
      409,
      "changed since it was read",
      "Conflict",
      "KubeApiError",
    ]);
  });
});

describe("parseStatusBody", () => {
  it("reads a Status object's message and reason", () => {
    const body = JSON.stringify({
      kind: "Status",
      message: 'flags "a" not found',
      reason: "NotFound",
      code: 404,
    });
    expect(parseStatusBody(body)).toEqual({ message: 'flags "a" not found', reason: "NotFound" });
  });

  it("says nothing for text that is not a Status object, or an empty message", () => {
    const none = { message: undefined, reason: undefined };
    expect(parseStatusBody("<html>bad gateway</html>")).toEqual(none);
    expect(parseStatusBody("null")).toEqual(none);
    expect(parseStatusBody(JSON.stringify({ message: "", reason: 7 }))).toEqual(none);
  });
});
