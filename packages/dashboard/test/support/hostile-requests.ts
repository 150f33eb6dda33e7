// The requests of the dashboard's hostile-input suite: node:http with the path sent as given,
// and the paths (by route family), methods and headers it tries.
import { request, type IncomingHttpHeaders } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import fc from "fast-check";
import { HOSTILE_SEGMENTS, pathParamValues, segment } from "../../../../test/support/hostile-input.ts";

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body, decoded if compressed, as latin1, so that any bytes compare exactly with the build's files. */
  body: string;
}

/** A body as sent with its Content-Encoding (the dashboard compresses for `accept-encoding: gzip, br`). */
function decoded(encoding: string | undefined, body: Buffer): Buffer {
  if (body.length === 0) return body;
  if (encoding === "gzip") return gunzipSync(body);
  if (encoding === "br") return brotliDecompressSync(body);
  return body;
}

/** One request with its path sent exactly as given (node:http does not normalize it). */
export function send(
  port: number,
  hangMs: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: "127.0.0.1", port, method, path, headers, agent: false }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("error", reject);
      incoming.on("end", () => {
        resolve({
          status: incoming.statusCode ?? 0,
          headers: incoming.headers,
          body: decoded(incoming.headers["content-encoding"], Buffer.concat(chunks)).toString("latin1"),
        });
      });
    });
    outgoing.setTimeout(hangMs, () => outgoing.destroy(new Error(`no answer in ${hangMs} ms`)));
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

/** Prefixes that try to leave /api once the proxy or the API decodes or normalizes them. */
const ESCAPES = [
  "/api/..",
  "/api/../..",
  "/api/%2e%2e",
  "/api/%2E%2E",
  "/api/.%2e",
  "/api/..%2f",
  "/api/%2e%2e%2f",
  "/api/v1/../..",
  "/api/v1/%2e%2e/%2e%2e",
  "/api%2f..",
  "/api/%252e%252e",
  "/api/..%5c",
  "/api\\..",
  "/api/..;",
  "/api/./..",
];
/** Paths the API serves outside /api, which the dashboard must never pass on. */
const API_OWN = ["/healthz", "/readyz", "/metrics", "", "/api/v1/auth/me"];
/** Lookalikes of /api that are not /api/*. */
const LOOKALIKES = [
  "/apix",
  "/apix/v1/flags",
  "/api..",
  "/API/v1/flags",
  "//api/v1/flags",
  "///api/v1/users",
  "/%61pi/v1/users",
  "/api%2fv1%2fusers",
  "/.api/v1/users",
  "/./api/v1/users",
  "/x/../api/v1/users",
  "/api%00/v1/users",
  "/api;/v1/users",
];
/** Files outside the build, reached by traversal from the app's paths. */
const OUTSIDE_BUILD = [
  "/../package.json",
  "/%2e%2e/package.json",
  "/assets/../../package.json",
  "/assets/%2e%2e/%2e%2e/src/server.ts",
  "/assets/..%2f..%2fsrc%2fserver.ts",
  "/..%2f..%2f..%2f..%2fetc%2fpasswd",
  "/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
  "/assets/..%5c..%5cpackage.json",
  "/assets/%252e%252e/package.json",
  "/index.html%00.js",
  "/assets/",
  "/assets",
];
const APP_ROUTES = [
  "/",
  "/index.html",
  "/flags",
  "/flags/local/shop/x",
  "/login",
  "/favicon.ico",
  "/healthz",
];

const tail = fc.array(segment(["v1", "flags", "users", "healthz", "metrics"]), { maxLength: 3 });
const joined = (head: string, rest: string[]) => [head, ...rest].join("/");

/** Each family's paths: [family, path], query string included. */
export function pathFamilies(operations: readonly { path: string }[], ns: string) {
  const api = fc.constantFrom(...operations).chain(({ path }) => {
    const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? "");
    return fc.tuple(...params.map((name) => segment(pathParamValues(name, "GET", ns)))).map((values) => {
      let url = path;
      params.forEach((name, i) => (url = url.replace(`{${name}}`, values[i] ?? "")));
      return url;
    });
  });
  return {
    "`/api/*` (the API's operations, hostile segments)": api,
    "`/api/…` leaving /api (`..`, `%2e%2e`, encoded slashes)": fc
      .tuple(fc.constantFrom(...ESCAPES), fc.constantFrom(...API_OWN), tail)
      .map(([escape, own, rest]) => `${escape}${own}${rest.length > 0 ? `/${rest.join("/")}` : ""}`),
    "lookalikes of /api (`/apix`, `//api`, `/%61pi`)": fc
      .tuple(fc.constantFrom(...LOOKALIKES), tail)
      .map(([look, rest]) => joined(look, rest)),
    "out of the build (traversal, NUL)": fc.constantFrom(...OUTSIDE_BUILD),
    "the app's routes and assets, hostile segments": fc
      .tuple(fc.constantFrom(...APP_ROUTES, "/assets", "/flags"), tail)
      .map(([route, rest]) => (rest.length === 0 ? route : joined(route.replace(/\/$/, ""), rest))),
    "over-long and odd paths": fc.oneof(
      fc.integer({ min: 1000, max: 20_000 }).map((n) => `/${"a".repeat(n)}`),
      fc.integer({ min: 1000, max: 20_000 }).map((n) => `/api/v1/flags/${"a".repeat(n)}`),
      fc.constantFrom(...HOSTILE_SEGMENTS).map((s) => `/${s}`),
      fc.constantFrom("*", "/*", "/?", "/#x", "/api?", "/api#/../healthz", "/%", "/api/%", "/api/v1/%zz"),
    ),
  };
}

export const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND"];
/** Headers no browser of this dashboard sends: odd Host, huge values, cookies, forwarding and override headers. */
export const oddHeaders = fc.array(
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom<[string, string]>(
        ["host", "evil.example"],
        ["host", "127.0.0.1:1"],
        ["host", ""],
        ["host", "localhost:8090/metrics"],
        ["x-forwarded-for", "10.0.0.1, 127.0.0.1"],
        ["x-forwarded-host", "evil.example"],
        ["x-forwarded-proto", "https"],
        ["x-original-url", "/metrics"],
        ["x-rewrite-url", "/healthz"],
        ["x-http-method-override", "DELETE"],
        ["accept", "text/html"],
        ["accept-encoding", "gzip, br"],
        ["origin", "http://evil.example"],
        ["connection", "upgrade"],
        ["upgrade", "websocket"],
        ["expect", "100-continue"],
        ["range", "bytes=0-10"],
        ["if-none-match", "*"],
        ["authorization", "Bearer"],
        ["authorization", `Bearer ${"a".repeat(5000)}`],
        ["authorization", "Bearer ../../etc/passwd"],
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 8_000, max: 40_000 })
        .map((n): [string, string] => ["x-huge", "a".repeat(n)]),
    },
    {
      weight: 2,
      arbitrary: fc
        .array(
          fc.tuple(fc.constantFrom("token", "session", "__proto__", "svc"), fc.string({ maxLength: 20 })),
          {
            minLength: 1,
            maxLength: 4,
          },
        )
        .map((pairs): [string, string] => [
          "cookie",
          pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; "),
        ]),
    },
  ),
  { maxLength: 3 },
);
