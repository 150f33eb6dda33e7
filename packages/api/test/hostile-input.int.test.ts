// Hostile input at every operation of the API server's own OpenAPI document, against a real
// cluster: random and hostile path segments (traversal, NUL, unicode, over-long, __proto__),
// repeated and unknown query keys, bodies of the wrong type, deeply nested, over 1 MiB or with
// __proto__ / constructor keys, odd content types, as every role, with a bad token and none.
// Whatever arrives: never a 5xx, never a hang, every error a JSON {error}, and a refused request
// changes nothing stored: users, clusters, and the flags in the cluster.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  authorizationOf,
  caller,
  expandBody,
  hostileBody,
  hostileQuery,
  pathParamValues,
  REFUSED_BODY_REPEATS,
  refusedBodyStatuses,
  segment,
  statusCounts,
  storedState as storedStateOf,
} from "../../../test/support/hostile-input.ts";
import { roleLogin, startHostileTarget, type ClusterApi } from "./support/cluster-api.ts";
import { writeReport } from "../../../test/reliability/report.ts";
import type { Reply } from "./support/harness.ts";

const RUNS_PER_OPERATION = 15;

let env: ClusterApi;
let ns = "";
/** An admin the suite never sends hostile requests as: it reads the stored state. */
let observer = "";
/** The callers' tokens; a logout a random request made is followed by a new login. */
const callers: Record<string, string> = {};
let operations: { method: string; path: string }[] = [];
interface Tally {
  requests: number;
  refused: number;
  serverErrors: number;
  hung: number;
  nonJson: number;
}
/** Per operation: requests tried, refused (4xx), and the answers the suite forbids, for the report. */
const tried = new Map<string, Tally>();

beforeAll(async () => {
  ({ env, namespace: ns, observer, operations } = await startHostileTarget("hostile"));
  Object.assign(callers, env.tokens);
});

afterAll(() => {
  writeReport(
    "api-hostile",
    [
      "| operation | requests | refused (4xx) | 5xx | no answer in 30 s | error not JSON `{error}` |",
      "| --- | ---: | ---: | ---: | ---: | ---: |",
      ...[...tried].map(
        ([op, n]) =>
          `| \`${op}\` | ${n.requests} | ${n.refused} | ${n.serverErrors} | ${n.hung} | ${n.nonJson} |`,
      ),
    ].join("\n"),
  );
});

/** What a refused request must leave as it was, read by the observer. */
const storedState = () => storedStateOf((path) => env.api.call("GET", path, { token: observer }), ns);

const isJsonError = (reply: Reply) =>
  /^application\/json/.test(reply.headers.get("content-type") ?? "") &&
  typeof (reply.json as { error?: unknown } | undefined)?.error === "string";

function checkReply(label: string, reply: Reply): void {
  expect(reply.status, `${label}: ${reply.text.slice(0, 300)}`).toBeLessThan(500);
  if (reply.status >= 400) {
    expect(reply.headers.get("content-type"), label).toMatch(/^application\/json/);
    expect(reply.json, label).toEqual({ error: expect.any(String) as string });
  }
}

describe("hostile input at every operation of the OpenAPI document", () => {
  it("never a 5xx, a hang or a non-JSON error; a refused request changes nothing stored", async () => {
    expect(operations.length).toBeGreaterThan(15);
    for (const { method, path } of operations) {
      const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? "");
      const pathValues = fc.tuple(...params.map((name) => segment(pathParamValues(name, method, ns))));
      await fc.assert(
        fc.asyncProperty(
          pathValues,
          hostileQuery(ns),
          hostileBody(ns),
          caller,
          async (values, pairs, sent, who) => {
            let url = path;
            params.forEach((name, i) => (url = url.replace(`{${name}}`, values[i] ?? "")));
            const search = new URLSearchParams(pairs).toString();
            const authorization = authorizationOf(who, callers);
            const before = await storedState();
            const count = tried.get(`${method} ${path}`) ?? {
              requests: 0,
              refused: 0,
              serverErrors: 0,
              hung: 0,
              nonJson: 0,
            };
            tried.set(`${method} ${path}`, count);
            count.requests++;
            const reply = await env.api
              .call(method, `${url}${search === "" ? "" : `?${search}`}`, {
                ...(sent === undefined ? {} : { rawBody: expandBody(sent.raw) }),
                headers: {
                  ...(authorization === undefined ? {} : { authorization }),
                  ...(sent === undefined || sent.type === "" ? {} : { "content-type": sent.type }),
                },
              })
              .catch((error: unknown) => {
                count.hung++;
                throw error;
              });
            if (reply.status >= 500) count.serverErrors++;
            if (reply.status >= 400 && !isJsonError(reply)) count.nonJson++;
            const label = `${method} ${url}?${search} as ${who}`;
            checkReply(label, reply);
            if (reply.status >= 400) {
              count.refused++;
              expect(
                await storedState(),
                `${label} was refused (${reply.status}) but changed what is stored`,
              ).toBe(before);
            }
            const login = roleLogin(who);
            if (path === "/api/v1/auth/logout" && reply.status < 300 && login !== undefined)
              callers[who] = await env.api.login(...login);
          },
        ),
        { numRuns: RUNS_PER_OPERATION },
      );
    }
  }, 600_000);
});

describe("a body the API refuses unread: its client still gets the answer", () => {
  for (const version of ["HTTP/1.0", "HTTP/1.1"]) {
    it(`${version}: ${REFUSED_BODY_REPEATS} POSTs of 1 MiB to an unknown route, each answered 413`, async () => {
      const head = `POST /api/v1/no-such-route ${version}\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close`;
      const statuses = await refusedBodyStatuses(Number(new URL(env.api.url).port), head);
      expect(statusCounts(statuses)).toEqual({ 413: REFUSED_BODY_REPEATS });
    }, 600_000);
    it(`${version}: ${REFUSED_BODY_REPEATS} requests with 1 MiB and a head over 16 KiB, each answered 431`, async () => {
      const head = `POST /api/v1/auth/login ${version}\r\nHost: 127.0.0.1\r\nX-Padding: ${"x".repeat(17 * 1024)}\r\nConnection: close`;
      const statuses = await refusedBodyStatuses(Number(new URL(env.api.url).port), head);
      expect(statusCounts(statuses)).toEqual({ 431: REFUSED_BODY_REPEATS });
    }, 600_000);
  }
});
