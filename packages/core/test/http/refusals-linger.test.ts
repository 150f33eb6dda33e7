import { describe, expect, it } from "vitest";
import { LINGER_LIMITS, lingerStep } from "../../src/http/linger.ts";
import { httpClientErrorAnswer } from "../../src/http/refusals.ts";

describe("lingerStep: how long a closing connection reads what its client still sends", () => {
  const limits = { maxBytes: 1000, maxMs: 2000 };

  it("reads on while the client sends within the limits", () => {
    expect(lingerStep({ drainedBytes: 0, elapsedMs: 0, clientEnded: false }, limits)).toBe("read");
    expect(lingerStep({ drainedBytes: 1000, elapsedMs: 1999, clientEnded: false }, limits)).toBe("read");
  });

  it("closes once the client is done, however early", () => {
    expect(lingerStep({ drainedBytes: 0, elapsedMs: 0, clientEnded: true }, limits)).toBe("close");
  });

  it("closes past the byte limit or at the time limit, so that no client holds it open", () => {
    expect(lingerStep({ drainedBytes: 1001, elapsedMs: 0, clientEnded: false }, limits)).toBe("close");
    expect(lingerStep({ drainedBytes: 0, elapsedMs: 2000, clientEnded: false }, limits)).toBe("close");
  });

  it("by default reads a refused body of the API's 1 MiB limit and more, for at most a few seconds", () => {
    const oneMiBAndABit = 1024 * 1024 + 100;
    expect(lingerStep({ drainedBytes: oneMiBAndABit, elapsedMs: 100, clientEnded: false })).toBe("read");
    expect(LINGER_LIMITS.maxMs).toBeLessThanOrEqual(5000);
    expect(LINGER_LIMITS.maxBytes).toBeLessThanOrEqual(8 * 1024 * 1024);
  });
});

describe("httpClientErrorAnswer: the raw answer to a request the parser refused", () => {
  it("is a complete HTTP response with a JSON {error}, the server's headers, and closes", () => {
    const answer = httpClientErrorAnswer({ code: "HPE_HEADER_OVERFLOW", message: "" }, 16 * 1024, {
      "x-frame-options": "DENY",
    });
    const [head = "", body = ""] = answer.split("\r\n\r\n");
    expect(head.split("\r\n")).toEqual([
      "HTTP/1.1 431 Request Header Fields Too Large",
      "Content-Type: application/json; charset=utf-8",
      "x-frame-options: DENY",
      `Content-Length: ${Buffer.byteLength(body)}`,
      "Connection: close",
    ]);
    expect(JSON.parse(body)).toEqual({ error: "request headers are larger than 16 KiB" });
  });

  it("counts the body's length in bytes, not characters", () => {
    const answer = httpClientErrorAnswer({ code: "HPE_INVALID_URL", message: "bad é" }, 16 * 1024);
    const body = answer.slice(answer.indexOf("\r\n\r\n") + 4);
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toContain(`Content-Length: ${Buffer.byteLength(body)}\r\n`);
  });
});
