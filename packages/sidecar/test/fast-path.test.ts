import { describe, expect, it } from "vitest";
import { responseHead, simpleGetTargets } from "../src/fast-path.ts";
import { prepare, TEXT_TYPE } from "../src/responses.ts";

const get = (target: string, headers = "Host: localhost\r\n") => `GET ${target} HTTP/1.1\r\n${headers}\r\n`;
const LIMITS = { maxHeadBytes: 16_384, maxHeaders: 64 };
const targets = (chunk: string) => simpleGetTargets(chunk, LIMITS);

describe("simpleGetTargets", () => {
  it("returns the targets of complete, body-less GETs, pipelined ones included", () => {
    expect(targets(get("/flags/a/value"))).toEqual(["/flags/a/value"]);
    expect(targets(get("/flags/a") + get("/healthz?x=1"))).toEqual(["/flags/a", "/healthz?x=1"]);
    expect(
      targets(get("/flags", "host: x\r\nUser-Agent: curl/8\r\nAccept: */*\r\nConnection: Keep-Alive\r\n")),
    ).toEqual(["/flags"]);
  });

  it("refuses anything that node:http must judge", () => {
    const refused = [
      "",
      `POST /ofrep/v1/evaluate/flags/a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}`,
      `HEAD /flags HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /flags HTTP/1.0\r\nHost: x\r\n\r\n`,
      `GET http://x/flags HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /fl ags HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /flags HTTP/1.1\r\n\r\n`,
      get("/flags", "Accept: */*\r\n"),
      get("/flags", "Host: x\r\nContent-Length: 0\r\n"),
      get("/flags", "Host: x\r\nTransfer-Encoding: chunked\r\n"),
      get("/flags", "Host: x\r\nConnection: close\r\n"),
      get("/flags", "Host: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"),
      get("/flags", "Host: x\r\nExpect: 100-continue\r\n"),
      get("/flags", "Host: x\r\nX-Folded: a\r\n b\r\n"),
      get("/flags", "Host: x\r\nX-Bare: a\nb\r\n"),
      get("/flags", "Host x\r\n"),
      get("/flags", "Ho st: x\r\n"),
      `GET /flags HTTP/1.1\r\nHost: x\r\n`,
      get("/flags") + "GET /flags/a HTTP/1.1\r\nHo",
    ];
    for (const chunk of refused) expect(targets(chunk), JSON.stringify(chunk)).toBeUndefined();
  });

  it("leaves requests at or past node:http's header limits to node:http (which answers 431)", () => {
    const headers = (n: number) => "Host: x\r\n" + "X-A: b\r\n".repeat(n - 1);
    expect(targets(get("/flags", headers(64)))).toEqual(["/flags"]);
    expect(targets(get("/flags", headers(65)))).toBeUndefined();
    const head = (valueBytes: number) => get("/flags", `Host: x\r\nX-Big: ${"v".repeat(valueBytes)}\r\n`);
    const fits = 16_384 - head(0).length - 1;
    expect(targets(head(fits))).toEqual(["/flags"]);
    expect(targets(head(fits + 1))).toBeUndefined();
    // The limit is per request: a pipelined packet of small requests may be larger.
    expect(targets(get("/a", headers(40)).repeat(100))).toHaveLength(100);
  });
});

describe("responseHead", () => {
  it("writes the status line, the prepared headers, Date and keep-alive", () => {
    expect(responseHead(prepare(200, TEXT_TYPE, "true"), "Sun, 22 Nov 2026 02:00:00 GMT", 65)).toBe(
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 4\r\n" +
        "Date: Sun, 22 Nov 2026 02:00:00 GMT\r\nConnection: keep-alive\r\nKeep-Alive: timeout=65\r\n\r\n",
    );
  });
});
