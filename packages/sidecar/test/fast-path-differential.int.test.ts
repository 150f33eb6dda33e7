// Differential test of the read fast path (DESIGN.md §7 keeps it on this condition): the same
// random and hostile bytes, split into packets at random points, go to the sidecar's HTTP server
// with the fast path in front (as runSidecar wires it) and to the same server on plain node:http.
// The bytes received must be the same, but for the Date header's value: the fast path may answer
// only what node:http would answer byte for byte, and must hand everything else over intact.
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installFastPath } from "../src/fast-path.ts";
import { FlagState } from "../src/flags.ts";
import { createSidecarServer, DEFAULT_HTTP_TIMEOUTS, type SidecarHttp } from "../src/server.ts";
import { newStats } from "../src/stats.ts";
import { ChangeStream } from "../src/stream.ts";
import { rawConnection } from "./support/raw-client.ts";

const RUNS = 200;
/**
 * Silence after which a connection is taken to have answered all it will; an exchange whose
 * answers differ is tried again with the longer one, so that a server slowed by a loaded machine
 * is not mistaken for a different answer (a real difference repeats).
 */
const QUIET_MS = 150;
const PATIENT_QUIET_MS = 1500;

let withFastPath: SidecarHttp;
let plain: SidecarHttp;
let stream: ChangeStream;

async function listen(http: SidecarHttp): Promise<number> {
  http.server.listen(0, "127.0.0.1");
  await once(http.server, "listening");
  return (http.server.address() as AddressInfo).port;
}

let fastPort = 0;
let plainPort = 0;
/** Reads the fast path answered itself: proof that the comparison exercises it. */
let fastAnswers = 0;

beforeAll(async () => {
  const state = new FlagState();
  state.replace([
    { metadata: { name: "alpha" }, spec: { type: "string", defaultValue: "a" } },
    { metadata: { name: "beta" }, spec: { type: "boolean", defaultValue: "true", enabled: false } },
  ]);
  const stats = newStats();
  stats.ready = true;
  stream = new ChangeStream({ state, stats, boot: "fuzz", heartbeatMs: 60_000 });
  const parts = {
    namespace: "fuzz",
    state,
    stream,
    stats,
    metrics: () => Promise.reject(new Error("not scraped here")),
    timeouts: DEFAULT_HTTP_TIMEOUTS,
    remoteReads: false,
  };
  withFastPath = createSidecarServer(parts);
  installFastPath(withFastPath.server, withFastPath.readFlags, () => {
    fastAnswers++;
  });
  plain = createSidecarServer(parts);
  fastPort = await listen(withFastPath);
  plainPort = await listen(plain);
});

afterAll(() => {
  stream.close();
  for (const http of [withFastPath, plain]) {
    http.server.closeAllConnections();
    http.server.close();
  }
});

// Mostly what the fast path answers, so that its branches run; then everything that must not.
const hostileText = (maxLength: number) =>
  fc.string({
    unit: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom("a", "x", "-", "/", "1", "v") },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          " ",
          "\t",
          "\r",
          "\n",
          "\0",
          "\x7f",
          "\xff",
          "\x80",
          ":",
          "%",
          "?",
          "#",
          '"',
          "<",
          "\\",
          "{",
          "|",
          "^",
          "`",
        ),
      },
    ),
    maxLength,
  });
const method = fc.oneof(
  { weight: 8, arbitrary: fc.constant("GET") },
  { weight: 1, arbitrary: fc.constantFrom("HEAD", "POST", "PUT", "OPTIONS", "get", "GET ", "G ET", "") },
);
/** Paths the fast path answers (with the two flags above: found, disabled, missing). */
const READ_PATHS = [
  "/healthz",
  "/flags",
  "/flags/alpha",
  "/flags/alpha/value",
  "/flags/beta/value",
  "/flags/nope",
  "/flags/nope/value",
];
const target = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(...READ_PATHS, "/flags/alpha/x", "/nope", "/ofrep/v1/evaluate/flags/alpha"),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom("/flags/", "/flags/alpha", "/healthz?", "/", ""), hostileText(12))
      .map(([a, b]) => a + b),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "*",
      "http://x/flags",
      "/flags/alpha#frag",
      "//flags",
      "/flags/alpha/value?x=1&y",
    ),
  },
);
const version = fc.oneof(
  { weight: 8, arbitrary: fc.constant("HTTP/1.1") },
  { weight: 1, arbitrary: fc.constantFrom("HTTP/1.0", "HTTP/2.0", "HTTP/1.1 ", "http/1.1", "HTTP/1.2", "") },
);
const headerName = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom("Host", "host", "Accept", "User-Agent", "X-Request-Id", "Connection"),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "Content-Length",
      "Transfer-Encoding",
      "Expect",
      "Upgrade",
      "TE",
      "Trailer",
      "If-None-Match",
      "Ho st",
      "Host ",
      "",
      "X\x7f",
      "X:Y",
    ),
  },
);
const headerValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("x", "localhost:8514", "*/*", "keep-alive", "Keep-Alive") },
  {
    weight: 1,
    arbitrary: fc.constantFrom("close", "0", "2", "chunked", "100-continue", "websocket", "", " padded "),
  },
  { weight: 2, arbitrary: hostileText(20) },
);
const manyHeaders = fc.oneof(
  { weight: 9, arbitrary: fc.constant("") },
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 1200 }).map((n) => "X-N: v\r\n".repeat(n)) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 15_000, max: 17_000 }).map((n) => `X-Big: ${"v".repeat(n)}\r\n`),
  },
);
const hostileRequest = fc
  .record({
    method,
    target,
    version,
    headers: fc.oneof(
      { weight: 2, arbitrary: fc.constant([]) },
      {
        weight: 1,
        arbitrary: fc.constant([["Accept", "*/*"] as const, ["Connection", "keep-alive"] as const]),
      },
      { weight: 2, arbitrary: fc.array(fc.tuple(headerName, headerValue), { maxLength: 5 }) },
    ),
    hostFirst: fc.oneof(
      { weight: 5, arbitrary: fc.constant(true) },
      { weight: 1, arbitrary: fc.constant(false) },
    ),
    manyHeaders,
    newline: fc.oneof(
      { weight: 9, arbitrary: fc.constant("\r\n") },
      { weight: 1, arbitrary: fc.constant("\n") },
    ),
    body: fc.oneof({ weight: 6, arbitrary: fc.constant("") }, { weight: 1, arbitrary: hostileText(10) }),
  })
  .map((r) => {
    const headers = (r.hostFirst ? [["Host", "x"] as const, ...r.headers] : r.headers)
      .map(([name, value]) => `${name}: ${value}${r.newline}`)
      .join("");
    return `${r.method} ${r.target} ${r.version}${r.newline}${headers}${r.manyHeaders}${r.newline}${r.body}`;
  });
const plainRead = fc
  .tuple(
    fc.constantFrom(...READ_PATHS),
    fc.constantFrom("", "Accept: */*\r\n", "User-Agent: curl/8.5.0\r\nAccept: */*\r\n"),
  )
  .map(([path, headers]) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${headers}\r\n`);
const request = fc.oneof({ weight: 1, arbitrary: plainRead }, { weight: 2, arbitrary: hostileRequest });
/** One to three requests, cut into packets at random points. */
const exchange = fc
  .tuple(
    fc.array(request, { minLength: 1, maxLength: 3 }),
    fc.oneof(
      { weight: 2, arbitrary: fc.constant([]) },
      { weight: 1, arbitrary: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }) },
    ),
  )
  .map(([requests, cuts]) => {
    const bytes = requests.join("");
    const points = [...new Set(cuts.map((c) => c % bytes.length))].filter((p) => p > 0).sort((a, b) => a - b);
    return [0, ...points].map((from, i) => bytes.slice(from, points[i] ?? bytes.length));
  });

/**
 * The statuses one server sends for the packets, each written on its own: collected until the
 * server closes the connection or sends nothing more for a while. The client never half-closes:
 * node:http aborts pipelined requests it has not answered when the client's FIN arrives, a race
 * whose outcome depends on timing, not on the fast path.
 */
interface Exchange {
  /** Everything received, each Date header's value replaced (the one header allowed to differ). */
  bytes: string;
  statuses: number[];
  /** Whether the server closed the connection. */
  closed: boolean;
}

async function exchangeWith(port: number, packets: readonly string[], quietMs: number): Promise<Exchange> {
  const connection = await rawConnection(port);
  for (const packet of packets) {
    await connection.send(packet);
    await sleep(2);
  }
  let seen = -1;
  for (let i = 0; i < 50 && !connection.closed() && connection.received().length !== seen; i++) {
    seen = connection.received().length;
    await sleep(quietMs);
  }
  const closed = connection.closed();
  connection.socket.destroy();
  return {
    bytes: connection.received().replace(/^Date: [^\r]*\r\n/gm, "Date: *\r\n"),
    statuses: connection.statuses(),
    closed,
  };
}

/**
 * Whether the fast path's exchange matches node:http's. The same bytes; or, on a connection that
 * both servers closed because of a request they refuse, the reference's first bytes. node:http
 * reads a connection it accepted natively, but a handed-over one (its first chunk at least)
 * through the socket's JavaScript stream, and on that path a request that fails to parse right
 * after pipelined requests of the same chunk ends the connection at once: the responses still
 * queued behind the one being written, and the error status, are not sent. (Plain node:http does
 * the same when it reads through the stream.) A client must retry pipelined requests left
 * unanswered on a closed connection anyway (RFC 9112 §9.3.2).
 */
function sameAnswers(fast: Exchange, reference: Exchange): boolean {
  if (fast.bytes === reference.bytes) return true;
  return (
    fast.closed && reference.closed && fast.statuses.length > 0 && reference.bytes.startsWith(fast.bytes)
  );
}

describe("the read fast path against plain node:http", () => {
  it("gives every random or hostile exchange the bytes node:http gives it, Date aside", async () => {
    await fc.assert(
      fc.asyncProperty(exchange, async (packets) => {
        const compare = async (quietMs: number) => {
          const [fast, reference] = await Promise.all([
            exchangeWith(fastPort, packets, quietMs),
            exchangeWith(plainPort, packets, quietMs),
          ]);
          return { same: sameAnswers(fast, reference), packets, fast, reference };
        };
        let outcome = await compare(QUIET_MS);
        if (!outcome.same) outcome = await compare(PATIENT_QUIET_MS);
        expect(outcome.same, JSON.stringify(outcome)).toBe(true);
      }),
      { numRuns: RUNS },
    );
    expect(fastAnswers).toBeGreaterThan(RUNS / 10);
  }, 300_000);
});
