// Hostile input at the dashboard server (`svc dashboard`: the built app, and a proxy of `/api/*`
// to the API server), in front of a real API server on the shared control plane. Requests are
// written with node:http and a raw path, so nothing normalizes them on the way: every operation
// of the API's OpenAPI document with hostile segments, paths that try to leave `/api` (`..`,
// `%2e%2e`, encoded slashes, double encoding, backslashes) or to reach the API's own
// `/healthz`, `/readyz` and `/metrics`, lookalikes (`/apix`, `//api`, `/API`, `/%61pi`),
// traversal out of the build (`/assets/../../package.json`), NUL, unicode and over-long paths;
// any method; odd Host, huge headers, cookies, forwarded and override headers; hostile query
// strings and bodies (wrong types, 1 MiB, nested 5,000 deep, `__proto__`), as every role, with
// a bad token and none.
//
// Must hold, for every input: never a 5xx, never a hang; every error a JSON `{error}`; the API
// server receives only paths under `/api` (counted at its socket: every request it saw while the
// input was in flight), even after decoding and dot-segment removal; everything else is a file of
// the build, or index.html for GET and HEAD (the app's routes, docs/dashboard.md) and a 404 JSON
// error for other methods; a refused request changes no user, cluster or flag.
//
// Fewer inputs while developing: SVC_HOSTILE_RUNS (default 500 per route family).
import { readdirSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { roleLogin, startHostileTarget, type ClusterApi } from "../../api/test/support/cluster-api.ts";
import { writeReport } from "../../../test/reliability/report.ts";
import {
  authorizationOf,
  caller,
  expandBody,
  hostileBody,
  hostileQuery,
  REFUSED_BODY_REPEATS,
  refusedBodyStatuses,
  statusCounts,
  storedState as storedStateOf,
} from "../../../test/support/hostile-input.ts";
import { CSP_NONCE_PLACEHOLDER } from "../src/build-output.ts";
import { buildDashboardServer, DEFAULT_DIST_DIR, type DashboardServer } from "../src/index.ts";
import { DASHBOARD_MAX_HEADER_BYTES } from "../src/server.ts";
import { METHODS, oddHeaders, pathFamilies, send, type Answer } from "./support/hostile-requests.ts";

const RUNS = Number(process.env["SVC_HOSTILE_RUNS"] ?? 500);
/** An answer not complete within this is a hang (the proxy gives up on the API after 10 s). */
const HANG_MS = 20_000;

let env: ClusterApi;
let dashboard: DashboardServer;
let dashboardPort = 0;
let ns = "";
/** An admin no hostile request is sent as: it reads the stored state, straight from the API. */
let observer = "";
/** The roles' live tokens; a logout a random request made is followed by a new login. */
const callers: Record<string, string> = {};
/** The API's operations, from its OpenAPI document. */
let operations: { method: string; path: string }[] = [];
/** The paths of the requests the API server received, as they arrived at its socket. */
const reachedApi: string[] = [];
/** Every file of the build, by its bytes: the only things the dashboard may serve itself. */
const builtFiles = new Set<string>();

interface Tally {
  tried: number;
  proxied: number;
  fivexx: number;
  hang: number;
  nonJson: number;
}
const tally = new Map<string, Tally>();

beforeAll(async () => {
  ({ env, namespace: ns, observer, operations } = await startHostileTarget("dash-hostile"));
  Object.assign(callers, env.tokens);
  env.api.server.app.server.on("request", (incoming: { url?: string }) => {
    reachedApi.push(incoming.url ?? "");
  });

  for (const entry of readdirSync(DEFAULT_DIST_DIR, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) builtFiles.add(readFileSync(join(entry.parentPath, entry.name), "latin1"));
  }

  dashboard = await buildDashboardServer({
    host: "127.0.0.1",
    port: 0,
    apiUrl: env.api.url,
    apiTimeoutMs: 10_000,
    logLevel: "silent",
  });
  dashboardPort = Number(new URL((await dashboard.listen()).url).port);
});

afterAll(async () => {
  await dashboard.close();
  writeReport(
    "dashboard-hostile",
    [
      "| route family | inputs | reached the API | 5xx | hang (20 s) | error not JSON `{error}` |",
      "| --- | ---: | ---: | ---: | ---: | ---: |",
      ...[...tally].map(
        ([family, n]) => `| ${family} | ${n.tried} | ${n.proxied} | ${n.fivexx} | ${n.hang} | ${n.nonJson} |`,
      ),
    ].join("\n"),
  );
});

/**
 * Whether the API may see this path: under /api as sent, once its dot segments are removed (as a
 * URL parser does, `%2e` included), and once decoded (as a router does, once) and normalized.
 */
function underApi(path: string): boolean {
  const raw = path.split("?")[0] ?? "";
  const within = (p: string) => p === "/api" || p.startsWith("/api/");
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // Not decodable: judged as sent.
  }
  return within(raw) && within(new URL(raw, "http://x").pathname) && within(posix.normalize(decoded));
}

/**
 * An error as svc writes them: JSON, exactly `{error}`, requests Node cannot parse (a head over
 * 15 KiB, a bad request line) included (core's httpClientErrorAnswer).
 */
const isJsonError = (answer: Answer) => {
  if (!/^application\/json/.test(answer.headers["content-type"] ?? "")) return false;
  try {
    const json = JSON.parse(answer.body) as Record<string, unknown>;
    return typeof json["error"] === "string" && Object.keys(json).join(",") === "error";
  } catch {
    return false;
  }
};

/** What a refused request must leave as it was, read by the observer straight from the API. */
const storedState = () => storedStateOf((path) => env.api.call("GET", path, { token: observer }), ns);

describe("hostile input at the dashboard server", () => {
  it("never a 5xx, a hang or a non-JSON error; only /api/* reaches the API; only the build is served; refusals change nothing", async () => {
    expect(operations.length).toBeGreaterThan(15);
    for (const [family, paths] of Object.entries(pathFamilies(operations, ns))) {
      const count: Tally = { tried: 0, proxied: 0, fivexx: 0, hang: 0, nonJson: 0 };
      tally.set(family, count);
      await fc.assert(
        fc.asyncProperty(
          paths,
          hostileQuery(ns),
          fc.constantFrom(...METHODS),
          oddHeaders,
          hostileBody(ns),
          caller,
          async (path, pairs, method, extra, sent, who) => {
            const search = new URLSearchParams(pairs).toString();
            const target = search === "" || path.includes("?") ? path : `${path}?${search}`;
            const authorization = authorizationOf(who, callers);
            const headers: Record<string, string> = {};
            if (authorization !== undefined) headers["authorization"] = authorization;
            if (sent !== undefined && sent.type !== "") headers["content-type"] = sent.type;
            for (const [name, value] of extra) headers[name] = value;
            // An over-long head is answered 431 with a JSON body before the server knows it was a
            // HEAD; node:http's client, which expects no body after a HEAD, cannot parse that. So a
            // HEAD whose head nears the dashboard's limit goes as a GET.
            const headBytes = Object.entries(headers).reduce(
              (sum, [name, value]) => sum + name.length + value.length + 4,
              target.length,
            );
            const verb = method === "HEAD" && headBytes > DASHBOARD_MAX_HEADER_BYTES - 1024 ? "GET" : method;
            const body = sent === undefined ? undefined : expandBody(sent.raw);
            // node:http frames a GET's or HEAD's body only when told its length.
            if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
            const label = `${verb} ${target.slice(0, 200)} as ${who} with ${JSON.stringify(
              extra.map(([name, value]) => [name, value.slice(0, 40)]),
            )}`;

            const before = await storedState();
            reachedApi.length = 0;
            count.tried++;
            const answer = await send(dashboardPort, HANG_MS, verb, target, headers, body).catch(
              (error: unknown) => {
                count.hang++;
                throw new Error(`${label}: ${String(error)}`);
              },
            );
            const reached = [...reachedApi];
            if (reached.length > 0) count.proxied++;
            if (answer.status >= 500) count.fivexx++;
            const json = isJsonError(answer) || (verb === "HEAD" && answer.body === "");
            if (answer.status >= 400 && !json) count.nonJson++;

            expect(answer.status, `${label}: ${answer.body.slice(0, 300)}`).toBeLessThan(500);
            if (answer.status >= 400) expect(json, `${label}: ${answer.body.slice(0, 300)}`).toBe(true);
            for (const path of reached)
              expect(underApi(path), `${label} reached the API as ${path}`).toBe(true);
            if (reached.length === 0 && answer.status < 300 && verb !== "HEAD" && answer.body !== "ok") {
              // Not the API's: a file of the build, or the app's index.html with its response's
              // nonce (206: the range asked for).
              const body = answer.body.replace(
                /nonce="[A-Za-z0-9+/]{22}=="/g,
                `nonce="${CSP_NONCE_PLACEHOLDER}"`,
              );
              const built =
                answer.status === 206
                  ? [...builtFiles].some((file) => file.startsWith(body))
                  : builtFiles.has(body);
              expect(built, `${label} served ${answer.body.slice(0, 200)}`).toBe(true);
            }
            if (answer.status >= 400) {
              expect(
                await storedState(),
                `${label} was refused (${answer.status}) but changed what is stored`,
              ).toBe(before);
            }
            const login = roleLogin(who);
            if (reached.some((p) => p.startsWith("/api/v1/auth/logout")) && login !== undefined)
              callers[who] = await env.api.login(...login);
          },
        ),
        { numRuns: RUNS },
      );
    }
  }, 900_000);
});

describe("a body the dashboard refuses unread: its client still gets the answer", () => {
  for (const version of ["HTTP/1.0", "HTTP/1.1"]) {
    it(`${version}: ${REFUSED_BODY_REPEATS} logins with 1 MiB, each answered 413 before the API`, async () => {
      const head = `POST /api/v1/auth/login ${version}\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close`;
      const statuses = await refusedBodyStatuses(dashboardPort, head);
      expect(statusCounts(statuses)).toEqual({ 413: REFUSED_BODY_REPEATS });
    }, 600_000);
    it(`${version}: ${REFUSED_BODY_REPEATS} requests with 1 MiB and a head over 15 KiB, each answered 431`, async () => {
      const head = `POST /api/v1/auth/login ${version}\r\nHost: 127.0.0.1\r\nX-Padding: ${"x".repeat(17 * 1024)}\r\nConnection: close`;
      const statuses = await refusedBodyStatuses(dashboardPort, head);
      expect(statusCounts(statuses)).toEqual({ 431: REFUSED_BODY_REPEATS });
    }, 600_000);
  }
});
