// What the dashboard's proxy tells the API server about a browser's request, and which requests
// it refuses before they could reach it.
import { describe, expect, it } from "vitest";
import { bodyRefusal, upstreamHeaders } from "../src/headers.ts";

describe("upstreamHeaders", () => {
  it("replaces the X-Forwarded-For the browser sent with the browser's address", () => {
    expect(
      upstreamHeaders("POST", { "x-forwarded-for": "10.0.0.1", "content-length": "2" }, "127.0.0.1"),
    ).toEqual({
      "x-forwarded-for": "127.0.0.1",
      "content-length": "2",
    });
  });

  it.each(["GET", "HEAD"])(
    "drops the framing of a %s's body, which is not passed on (else the API reads the next request as it)",
    (method) => {
      const sent = { authorization: "Bearer t", "content-length": "1016", "transfer-encoding": "chunked" };
      expect(upstreamHeaders(method, sent, "127.0.0.1")).toEqual({
        authorization: "Bearer t",
        "x-forwarded-for": "127.0.0.1",
      });
      expect(sent["content-length"]).toBe("1016");
    },
  );

  it.each(["POST", "PUT", "PATCH", "DELETE", "OPTIONS"])(
    "keeps the framing of a %s's body, which is passed on",
    (method) => {
      expect(upstreamHeaders(method, { "content-length": "5" }, "::1")["content-length"]).toBe("5");
    },
  );
});

describe("bodyRefusal", () => {
  const LIMIT = 1024;
  it("passes a body up to the API's limit, and a request without a body", () => {
    expect(bodyRefusal("POST", { "content-length": "1024" }, LIMIT)).toBeUndefined();
    expect(bodyRefusal("DELETE", {}, LIMIT)).toBeUndefined();
  });

  it("refuses a larger body with 413, which the API would answer before reading it all", () => {
    expect(bodyRefusal("PATCH", { "content-length": "1025" }, LIMIT)).toEqual({
      status: 413,
      error: "the request body is larger than 1024 bytes",
    });
  });

  it("refuses a body of unknown length with 411", () => {
    expect(bodyRefusal("PUT", { "transfer-encoding": "chunked" }, LIMIT)?.status).toBe(411);
  });

  it("does not judge a GET's or HEAD's body, which is never passed on", () => {
    expect(bodyRefusal("GET", { "content-length": "99999" }, LIMIT)).toBeUndefined();
    expect(bodyRefusal("HEAD", { "transfer-encoding": "chunked" }, LIMIT)).toBeUndefined();
  });
});
