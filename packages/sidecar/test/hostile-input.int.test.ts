// Hostile input at every route of the real `svc sidecar` process (server.ts, ofrep.ts), written
// on raw TCP so that nothing is cleaned up on the way: wrong methods, hostile paths (traversal,
// NUL, unicode, over-long), repeated query keys, odd headers, bodies of the wrong type, huge,
// nested 5,000 deep or with __proto__ / constructor keys, odd content types, HTTP/1.0. Whatever
// arrives: never a 5xx, never a hang, every error a JSON body ({error}, or OFREP's
// {errorCode, errorDetails} for an evaluation), and no FeatureFlag changes (the sidecar only
// reads). Refusal of non-loopback peers is the node e2e suite's (only loopback is reachable here).
//
// Fewer inputs while developing: SVC_HOSTILE_RUNS (default 150 per route).
import { CustomObjectsApi } from "@kubernetes/client-node";
import { API_GROUP, API_VERSION, FEATURE_FLAG } from "@svc/core";
import { installCrds } from "@svc/kube";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { writeReport } from "../../../test/reliability/report.ts";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import {
  deepNesting,
  ODD_CONTENT_TYPES,
  PROTOTYPE_BODIES,
  REFUSED_BODY_REPEATS,
  refusedBodyStatuses,
  segment,
  statusCounts,
} from "../../../test/support/hostile-input.ts";
import { flagWriter } from "./support/flags-api.ts";
import { rawConnection } from "./support/raw-client.ts";
import { startSidecarProcess, type SidecarProcess } from "./support/sidecar-process.ts";

const RUNS = Number(process.env["SVC_HOSTILE_RUNS"] ?? 150);
/** A request not answered within this is a hang (the sidecar's own request timeout is 30 s). */
const HANG_MS = 10_000;
const OFREP = "/ofrep/v1/evaluate/flags";
const FLAG_NAMES = ["alpha", "beta", "gamma", "ghost"];

const kc = testKubeConfig();
let namespace = "";
let sidecar: SidecarProcess;
/** The same command on Bun, the sidecar image's runtime. */
let onBun: SidecarProcess;

/** Inputs tried and bad answers per route, for the report. */
const tally = new Map<string, { tried: number; fivexx: number; hang: number; nonJson: number }>();

beforeAll(async () => {
  await installCrds(kc);
  namespace = await testNamespace(kc, "sidecar-hostile");
  const flags = flagWriter(kc, namespace);
  await flags.create("alpha", "string", "a");
  await flags.create("beta", "boolean", "true", false);
  await flags.create("gamma", "json", '{"tiers":[1,2]}');
  [sidecar, onBun] = await Promise.all([
    startSidecarProcess({ namespace, kubeconfigPath: inject("kubeconfigPath") }),
    startSidecarProcess({ namespace, kubeconfigPath: inject("kubeconfigPath"), bun: true }),
  ]);
  await eventually(
    () => fetch(`${sidecar.url}/flags`).then(async (r) => (await r.json()) as unknown[]),
    (list) => list.length === 3,
    "the three flags served",
  );
});

afterAll(async () => {
  await Promise.all([sidecar.stop(), onBun.stop()]);
  const rows = [...tally].map(
    ([route, n]) => `| ${route} | ${n.tried} | ${n.fivexx} | ${n.hang} | ${n.nonJson} |`,
  );
  writeReport(
    "sidecar-hostile",
    [
      "### Hostile input, svc sidecar: inputs per route",
      "",
      "| route | inputs | 5xx | hang | non-JSON error |",
      "| --- | ---: | ---: | ---: | ---: |",
      ...rows,
    ].join("\n"),
  );
});

/** The resourceVersion of every FeatureFlag of the namespace: a read-only sidecar changes none. */
async function flagVersions(): Promise<string> {
  const list = (await kc.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
    group: API_GROUP,
    version: API_VERSION,
    namespace,
    plural: FEATURE_FLAG.plural,
  })) as { items: { metadata: { name: string; resourceVersion: string } }[] };
  return list.items.map((f) => `${f.metadata.name}@${f.metadata.resourceVersion}`).join(",");
}

/** Segments sent as raw bytes, which a client library would refuse to send. */
const RAW_SEGMENTS = ["\u0000", "a b", "é", "😀", "\t", "a\r\nX-Injected: 1", "%", "%zz", "?", "#x"];
const pathSegment = (valid: readonly string[]) =>
  fc.oneof(
    { weight: 6, arbitrary: segment(valid).map((text) => ({ text, raw: false })) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS).map((text) => ({ text, raw: true })) },
  );

const METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND", "get"];
const QUERY_KEYS = ["context", "flag", "name", "a", "__proto__", "constructor", "", "x[y]"];
const query = fc.array(
  fc.tuple(
    fc.constantFrom(...QUERY_KEYS),
    fc.oneof(fc.constantFrom("1", "", "alpha"), fc.string({ maxLength: 8 })),
  ),
  { maxLength: 5 },
);
/** Headers that are odd but well-formed; malformed ones (NUL, no colon) make the request malformed. */
const ODD_HEADERS = [
  "Last-Event-ID: 0",
  "Last-Event-ID: x.99999999999999999999",
  "If-None-Match: *",
  'If-None-Match: W/"x", "y"',
  "Accept: text/event-stream",
  "Accept: application/xml",
  "X-Forwarded-For: 10.0.0.1",
  "Host: evil.example",
  "Authorization: Bearer x",
  "Cookie: __proto__=1",
  "Expect: 100-continue",
  "Content-Encoding: gzip",
  "X-Unicode: \u00fc\u00e9",
];
const MALFORMED_HEADERS = ["X-Nul: a\u0000b", "No colon here", " Leading-Space: x", "X: \u0001"];

const body = fc.oneof(
  { weight: 2, arbitrary: fc.constant("") },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  {
    weight: 2,
    arbitrary: fc
      .record(
        { context: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant({ targetingKey: "u" })) },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v)),
  },
  { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_BODIES) },
  {
    weight: 1,
    arbitrary: deepNesting.map(
      (arrays) => `{"context":${arrays.replace("[", '{"a":[').replace(/]$/, "]}")}}`,
    ),
  },
  { weight: 1, arbitrary: deepNesting },
  { weight: 1, arbitrary: fc.constantFrom("HUGE_70K", "HUGE_1M") },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
);
const expandBody = (text: string) =>
  text === "HUGE_70K"
    ? `{"context":{"x":"${"x".repeat(70 * 1024)}"}}`
    : text === "HUGE_1M"
      ? "y".repeat(1024 * 1024)
      : text;

interface HostileRequest {
  method: string;
  path: string;
  query: [string, string][];
  version: string;
  headers: string[];
  body: string;
  chunked: boolean;
  /** Whether HTTP itself is well-formed, so that the route (not the parser) answers. */
  wellFormed: boolean;
}

function request(paths: fc.Arbitrary<{ text: string; raw: boolean }>, method: string) {
  return fc
    .record({
      path: paths,
      method: fc.oneof(
        { weight: 3, arbitrary: fc.constant(method) },
        { weight: 2, arbitrary: fc.constantFrom(...METHODS) },
      ),
      query,
      version: fc.oneof(
        { weight: 6, arbitrary: fc.constant("HTTP/1.1") },
        { weight: 2, arbitrary: fc.constant("HTTP/1.0") },
        { weight: 1, arbitrary: fc.constantFrom("HTTP/2.0", "HTTP/0.9", "HTTX/1.1", "") },
      ),
      headers: fc.subarray(ODD_HEADERS, { maxLength: 4 }),
      malformed: fc.oneof(
        { weight: 8, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom(...MALFORMED_HEADERS) },
      ),
      contentType: fc.constantFrom("application/json", ...ODD_CONTENT_TYPES),
      body,
      chunked: fc.boolean(),
    })
    .map((r): HostileRequest => ({
      method: r.method,
      path: r.path.text,
      query: r.query,
      version: r.version,
      headers: [
        ...r.headers,
        ...(r.malformed === undefined ? [] : [r.malformed]),
        ...(r.contentType === "" ? [] : [`Content-Type: ${r.contentType}`]),
      ],
      body: r.body,
      chunked: r.chunked,
      wellFormed:
        !r.path.raw &&
        r.malformed === undefined &&
        /^HTTP\/1\.[01]$/.test(r.version) &&
        r.method !== "get" &&
        r.path.text.length < 8000,
    }));
}

/** The bytes of a request: UTF-8 text sent as is, the body by Content-Length or chunked. */
function wire(r: HostileRequest): string {
  const search = r.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
  const payload = Buffer.from(expandBody(r.body), "utf8");
  const framing = r.chunked
    ? ["Transfer-Encoding: chunked"]
    : payload.length > 0 || r.method === "POST"
      ? [`Content-Length: ${payload.length}`]
      : [];
  const head = [
    `${r.method} ${r.path}${search === "" ? "" : `?${search}`} ${r.version}`.replace(/ $/, ""),
    "Host: 127.0.0.1",
    ...r.headers,
    ...framing,
    "Connection: close",
  ].join("\r\n");
  const sent = r.chunked
    ? `${payload.length > 0 ? `${payload.length.toString(16)}\r\n${payload.toString("latin1")}\r\n` : ""}0\r\n\r\n`
    : payload.toString("latin1");
  return `${Buffer.from(head, "utf8").toString("latin1")}\r\n\r\n${sent}`;
}

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/** Sends the request; the answer once complete (a stream: its head), or undefined after HANG_MS. */
async function exchange(port: number, r: HostileRequest): Promise<Answer | undefined> {
  const connection = await rawConnection(port);
  void connection.send(wire(r));
  const parse = (): Answer | undefined => {
    // 100 Continue (Expect) comes before the answer.
    const text = connection.received().replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, "");
    const end = text.indexOf("\r\n\r\n");
    if (end === -1) return undefined;
    const head = text.slice(0, end);
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
    const header = (name: string) => new RegExp(`\r\n${name}: *([^\r]*)`, "i").exec(head)?.[1];
    const contentType = header("content-type") ?? "";
    const bytes = Buffer.from(text.slice(end + 4), "latin1");
    const length = Number(header("content-length") ?? NaN);
    const complete =
      contentType.startsWith("text/event-stream") || bytes.length >= length || connection.closed();
    return complete ? { status, contentType, body: bytes.toString("utf8") } : undefined;
  };
  const deadline = Date.now() + HANG_MS;
  let answer = parse();
  while (
    answer === undefined &&
    Date.now() < deadline &&
    !(connection.closed() && connection.received() === "")
  ) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    answer = parse();
  }
  connection.socket.destroy();
  if (answer === undefined && connection.closed()) return { status: 0, contentType: "", body: "" };
  return answer;
}

/** Whether an error body is JSON of the shape its route promises. */
function errorShapeOk(answer: Answer, ofrepEvaluation: boolean, head: boolean): boolean {
  if (!answer.contentType.startsWith("application/json")) return false;
  // A HEAD answer is a GET's without the body (a request the parser refused gets one).
  if (head && answer.body === "") return true;
  let json: unknown;
  try {
    json = JSON.parse(answer.body);
  } catch {
    return false;
  }
  if (typeof json !== "object" || json === null) return false;
  const fields = json as Record<string, unknown>;
  const ofrep = typeof fields["errorCode"] === "string" && typeof fields["errorDetails"] === "string";
  return ofrepEvaluation ? ofrep : typeof fields["error"] === "string" || ofrep;
}

/**
 * Inputs that failed once (counterexamples of earlier runs), tried first on every run, by route:
 * a body of 1 MiB that the sidecar answered before reading, then closed on, so the reset threw
 * the answer away at the client (fixed by the lingering close).
 */
const FOUND: Readonly<Record<string, HostileRequest[]>> = {
  "GET /readyz (no such route: 404)": [
    {
      method: "GET",
      path: "/readyz",
      query: [],
      version: "HTTP/1.0",
      headers: ["Content-Type: application/json"],
      body: "HUGE_1M",
      chunked: false,
      wellFormed: true,
    },
  ],
  "GET /flags/stream": [
    {
      method: "HEAD",
      path: "/flags/stream/\u0000",
      query: [],
      version: "HTTP/1.0",
      headers: ["Content-Type: application/json"],
      body: "HUGE_1M",
      chunked: false,
      wellFormed: false,
    },
  ],
};

const names = pathSegment(FLAG_NAMES);
const fixed = (path: string) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant({ text: path, raw: false }) },
    {
      weight: 1,
      arbitrary: pathSegment(["x", "alpha"]).map((s) => ({ text: `${path}/${s.text}`, raw: s.raw })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom("/", "//", "/.", "/%2e%2e")
        .map((s) => ({ text: `${path}${s}`, raw: false })),
    },
  );
const ROUTES: [string, string, fc.Arbitrary<{ text: string; raw: boolean }>][] = [
  ["GET /flags", "GET", fixed("/flags")],
  ["GET /flags/{name}", "GET", names.map((n) => ({ text: `/flags/${n.text}`, raw: n.raw }))],
  ["GET /flags/{name}/value", "GET", names.map((n) => ({ text: `/flags/${n.text}/value`, raw: n.raw }))],
  ["GET /flags/stream", "GET", fixed("/flags/stream")],
  [
    "POST /ofrep/v1/evaluate/flags/{key}",
    "POST",
    names.map((n) => ({ text: `${OFREP}/${n.text}`, raw: n.raw })),
  ],
  ["POST /ofrep/v1/evaluate/flags", "POST", fixed(OFREP)],
  ["GET /healthz", "GET", fixed("/healthz")],
  ["GET /readyz (no such route: 404)", "GET", fixed("/readyz")],
  ["GET /metrics", "GET", fixed("/metrics")],
  [
    "unknown paths",
    "GET",
    fc.oneof(
      fc.array(pathSegment(["flags", "ofrep", "v1", "x"]), { minLength: 1, maxLength: 6 }).map((parts) => ({
        text: `/${parts.map((p) => p.text).join("/")}`,
        raw: parts.some((p) => p.raw),
      })),
      fc
        .constantFrom("*", "http://evil.example/flags", "/../../etc/passwd", `/${"x".repeat(20_000)}`)
        .map((text) => ({ text, raw: false })),
    ),
  ],
];

describe("hostile input at every route of svc sidecar", () => {
  for (const [route, method, paths] of ROUTES) {
    it(`${route}: never a 5xx, a hang or a non-JSON error; no FeatureFlag changes`, async () => {
      const before = await flagVersions();
      const count = { tried: 0, fivexx: 0, hang: 0, nonJson: 0 };
      tally.set(route, count);
      await fc.assert(
        fc.asyncProperty(request(paths, method), async (r) => {
          const answer = await exchange(sidecar.port, r);
          count.tried++;
          const label = `${r.method} ${r.path.slice(0, 200)} ${r.version}`;
          if (answer === undefined) count.hang++;
          expect(answer, `${label}: no answer in ${HANG_MS} ms`).toBeDefined();
          if (answer === undefined) return;
          expect(answer.status, `${label}: the connection closed without an answer`).not.toBe(0);
          if (answer.status >= 500) count.fivexx++;
          expect(answer.status, `${label}: ${answer.body.slice(0, 300)}`).toBeLessThan(500);
          if (answer.status >= 400) {
            const ofrepEvaluation =
              r.wellFormed &&
              r.method === "POST" &&
              route.startsWith("POST /ofrep") &&
              !r.path.slice(OFREP.length + 1).includes("/");
            const ok = errorShapeOk(answer, ofrepEvaluation, r.method === "HEAD");
            if (!ok) count.nonJson++;
            expect(ok, `${label}: ${answer.status} ${answer.contentType} ${answer.body.slice(0, 300)}`).toBe(
              true,
            );
          }
        }),
        { numRuns: RUNS, examples: (FOUND[route] ?? []).map((r) => [r] as [HostileRequest]) },
      );
      expect(await flagVersions()).toBe(before);
      // Still serving after all of it.
      expect((await fetch(`${sidecar.url}/flags/alpha/value`)).status).toBe(200);
    });
  }
});

/** Hostile evaluation contexts (docs/sidecar.md, "OFREP mapping"): each refused, named, before evaluation. */
const HOSTILE_CONTEXTS: [string, string, number, RegExp][] = [
  ["a string context", '{"context": "user-1"}', 400, /^context must be a JSON object$/],
  ["an array context", '{"context": [{"targetingKey": "u"}]}', 400, /^context must be a JSON object$/],
  ["a null context", '{"context": null}', 400, /^context must be a JSON object$/],
  [
    "__proto__ at the top",
    '{"context": {"__proto__": {"targetingKey": "admin"}}}',
    400,
    /"__proto__" is not allowed/,
  ],
  [
    "__proto__ nested",
    '{"context": {"user": {"__proto__": {"isAdmin": true}}}}',
    400,
    /^context\.user: the key "__proto__"/,
  ],
  [
    "constructor.prototype",
    '{"context": {"constructor": {"prototype": {"x": 1}}}}',
    400,
    /"constructor" is not allowed/,
  ],
  [
    "2,000 attributes",
    JSON.stringify({
      context: Object.fromEntries(Array.from({ length: 2_000 }, (_, n) => [n.toString(36), 0])),
    }),
    400,
    /more than 1000 values/,
  ],
  [
    "10,000 attributes (over the body limit)",
    JSON.stringify({
      context: Object.fromEntries(Array.from({ length: 10_000 }, (_, n) => [n.toString(36), 0])),
    }),
    413,
    /larger than 65536 bytes/,
  ],
  [
    "10,000 array items",
    JSON.stringify({ context: { ids: Array.from({ length: 10_000 }, () => 0) } }),
    400,
    /more than 1000 values/,
  ],
  [
    "arrays nested 5,000 deep",
    `{"context": {"a": ${"[".repeat(5_000)}${"]".repeat(5_000)}}}`,
    400,
    /nested deeper than 8 levels/,
  ],
  [
    "a 60 KB string",
    JSON.stringify({ context: { email: "x".repeat(60_000) } }),
    400,
    /^context\.email is longer than 4096/,
  ],
  [
    "a numeric targetingKey",
    '{"context": {"targetingKey": 42}}',
    400,
    /^context\.targetingKey must be a string$/,
  ],
  [
    "an object targetingKey",
    '{"context": {"targetingKey": {"id": "u"}}}',
    400,
    /^context\.targetingKey must be a string$/,
  ],
  [
    "a null targetingKey",
    '{"context": {"targetingKey": null}}',
    400,
    /^context\.targetingKey must be a string$/,
  ],
];

describe("hostile evaluation contexts: a clear OFREP error, nothing evaluated, the sidecar still serving", () => {
  for (const [runtime, target] of [
    ["Node", () => sidecar],
    ["Bun", () => onBun],
  ] as const) {
    it.each(HOSTILE_CONTEXTS)(`on ${runtime}: %s`, async (_what, body, status, details) => {
      const before = await flagVersions();
      for (const [path, key] of [
        [`${OFREP}/alpha`, "alpha"],
        [OFREP, undefined],
      ] as const) {
        const response = await fetch(`${target().url}${path}`, { method: "POST", body });
        expect(response.status, path).toBe(status);
        expect(response.headers.get("content-type")).toMatch(/^application\/json/);
        const answer = (await response.json()) as Record<string, unknown>;
        expect(answer, path).toEqual({
          ...(key !== undefined && status === 400 && { key }),
          errorCode: status === 400 ? "INVALID_CONTEXT" : "GENERAL",
          errorDetails: expect.stringMatching(details) as string,
        });
      }
      expect(await flagVersions()).toBe(before);
      expect((await fetch(`${target().url}/healthz`)).status).toBe(200);
      const ok = await fetch(`${target().url}${OFREP}/alpha`, {
        method: "POST",
        body: '{"context": {"targetingKey": "u"}}',
      });
      expect(await ok.json()).toMatchObject({ key: "alpha", value: "a", reason: "STATIC" });
    });
  }
});

describe("a body the sidecar refuses unread: its client still gets the answer", () => {
  const runtimes = [
    ["Node", () => sidecar],
    ["Bun", () => onBun],
  ] as const;
  // A route that does not read it, and a request its HTTP parser refuses (NUL in the path).
  const refusals = [
    ["GET /readyz", 404],
    ["HEAD /flags/stream/\u0000", 400],
  ] as const;
  for (const [runtime, target] of runtimes) {
    for (const [request, status] of refusals) {
      for (const version of ["HTTP/1.0", "HTTP/1.1"]) {
        it(`on ${runtime}, ${version}: ${REFUSED_BODY_REPEATS} × ${JSON.stringify(request)} with 1 MiB, each answered ${status}`, async () => {
          const head = `${request} ${version}\r\nHost: 127.0.0.1\r\nConnection: close`;
          const statuses = await refusedBodyStatuses(target().port, head);
          expect(statusCounts(statuses)).toEqual({ [status]: REFUSED_BODY_REPEATS });
        }, 600_000);
      }
    }
  }
});
