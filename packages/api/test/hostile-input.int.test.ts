// Hostile input at every operation of the API server's own OpenAPI document, against a real
// cluster: random and hostile path segments (traversal, NUL, unicode, over-long, __proto__),
// repeated and unknown query keys, bodies of the wrong type, deeply nested, over 1 MiB or with
// __proto__ / constructor keys, odd content types, as every role, with a bad token and none.
// Whatever arrives: never a 5xx, never a hang, every error a JSON {error}, and a refused request
// changes nothing stored: users, clusters, and the flags in the cluster.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testNamespace } from "../../../test/support/kube.ts";
import { validFlagSpec } from "../../../test/support/flag-cases.ts";
import {
  deepNesting,
  ODD_CONTENT_TYPES,
  PROTOTYPE_BODIES,
  segment,
} from "../../../test/support/hostile-input.ts";
import { startClusterApi, type ClusterApi } from "./support/cluster-api.ts";
import { writeReport } from "../../../test/reliability/report.ts";
import { ADMIN_PASSWORD, type Reply } from "./support/harness.ts";

const RUNS_PER_OPERATION = 15;

let env: ClusterApi;
let ns = "";
/** An admin the suite never sends hostile requests as: it reads the stored state. */
let observer = "";
/** The callers' tokens; a logout a random request made is followed by a new login. */
const callers: Record<string, string> = {};
const PASSWORDS: Record<string, [string, string]> = {
  admin: ["admin", ADMIN_PASSWORD],
  editor: ["ed", "ed-password"],
  viewer: ["vi", "vi-password"],
};
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
  env = await startClusterApi("hostile");
  ns = await testNamespace(env.kc, "hostile");
  const { admin } = env.tokens;
  Object.assign(callers, env.tokens);
  await env.api.createUser(admin, "fuzz-target", "viewer");
  await env.api.createUser(admin, "observer", "admin");
  observer = await env.api.login("observer", "observer-password");
  const seed = await env.api.call("POST", "/api/v1/flags", {
    token: admin,
    body: { ...validFlagSpec, name: "seed", namespace: ns, clusterId: "local" },
  });
  expect(seed.status).toBe(201);
  const document = (await env.api.call("GET", "/api/v1/openapi.json", { token: admin })).json as {
    paths: Record<string, Record<string, unknown>>;
  };
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path })),
  );
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

/** Values for a path parameter; never a name whose loss would end the suite (the role users, the local cluster on DELETE). */
function paramValues(name: string, method: string): readonly string[] {
  if (name === "namespace") return [ns, "default", "kube-system"];
  if (name === "name") return ["seed", "ghost"];
  if (name === "username") return ["fuzz-target", "ghost"];
  if (name === "id") return method === "DELETE" ? ["ghost"] : ["local", "ghost"];
  return ["x"];
}

const QUERY_KEYS = [
  "clusterId",
  "namespace",
  "dryRun",
  "limit",
  "since",
  "before",
  "x",
  "__proto__",
  "constructor",
];
const query = fc.array(
  fc.tuple(
    fc.constantFrom(...QUERY_KEYS),
    fc.oneof(fc.constantFrom("local", "true", "false", "-1", "1e9", "", ns), fc.string({ maxLength: 12 })),
  ),
  { maxLength: 4 },
);

/** Stands for a body just over 1 MiB, made when sent (so that a counterexample stays readable). */
const OVER_1_MIB = "<a JSON body of 1 MiB + 10 bytes>";
const expand = (raw: string) =>
  raw === OVER_1_MIB ? `{"description":"${"x".repeat(1024 * 1024 + 10)}"}` : raw;
const hostileJson = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc
    .record(
      {
        name: fc.oneof(fc.constantFrom("seed", "new-one", "__proto__"), fc.string({ maxLength: 70 })),
        namespace: fc.oneof(fc.constant(ns), fc.string({ maxLength: 70 })),
        clusterId: fc.oneof(fc.constant("local"), fc.string({ maxLength: 10 }), fc.integer()),
        type: fc.oneof(
          fc.constantFrom("boolean", "integer", "string", "json"),
          fc.string({ maxLength: 8 }),
          fc.boolean(),
        ),
        defaultValue: fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.constant(null)),
        enabled: fc.oneof(fc.boolean(), fc.string({ maxLength: 5 })),
        delivery: fc.oneof(fc.constant(validFlagSpec.delivery), fc.jsonValue({ maxDepth: 2 })),
        username: fc.oneof(fc.constantFrom("fuzz-target", "observer"), fc.string({ maxLength: 70 })),
        password: fc.oneof(fc.string({ maxLength: 80 }), fc.integer()),
        role: fc.oneof(fc.constantFrom("admin", "editor", "viewer"), fc.string({ maxLength: 8 })),
      },
      { requiredKeys: [] },
    )
    .map((v) => JSON.stringify(v)),
  fc.constantFrom(...PROTOTYPE_BODIES),
  deepNesting,
  fc.constant(OVER_1_MIB),
  fc.string({ maxLength: 40 }),
);
const body = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: hostileJson.map((raw) => ({ raw, type: "application/json" })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(hostileJson, fc.constantFrom(...ODD_CONTENT_TYPES))
      .map(([raw, type]) => ({ raw, type })),
  },
);
const caller = fc.constantFrom("admin", "editor", "viewer", "bad-token", "none", "malformed");

function tokenOf(who: string): { token?: string; headers: Record<string, string> } {
  const token = callers[who];
  if (token !== undefined) return { token, headers: {} };
  if (who === "bad-token") return { token: "0".repeat(64), headers: {} };
  if (who === "malformed") return { headers: { authorization: "Basic YWRtaW46YWRtaW4=" } };
  return { headers: {} };
}

/** What a refused request must leave as it was. */
async function storedState(): Promise<string> {
  const [users, clusters, flags] = await Promise.all([
    env.api.call("GET", "/api/v1/users", { token: observer }),
    env.api.call("GET", "/api/v1/clusters", { token: observer }),
    env.api.call("GET", `/api/v1/flags?clusterId=local&namespace=${ns}`, { token: observer }),
  ]);
  const usersView = (users.json as { username: string; role: string }[]).map(
    (u) => `${u.username}:${u.role}`,
  );
  const clustersView = (clusters.json as { id: string }[]).map((c) => c.id);
  const flagsView = (flags.json as { name: string; resourceVersion: string }[]).map(
    (f) => `${f.name}@${f.resourceVersion}`,
  );
  return JSON.stringify({ usersView, clustersView, flagsView });
}

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
      const pathValues = fc.tuple(...params.map((name) => segment(paramValues(name, method))));
      await fc.assert(
        fc.asyncProperty(pathValues, query, body, caller, async (values, pairs, sent, who) => {
          let url = path;
          params.forEach((name, i) => (url = url.replace(`{${name}}`, values[i] ?? "")));
          const search = new URLSearchParams(pairs).toString();
          const { token, headers } = tokenOf(who);
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
              ...(token === undefined ? {} : { token }),
              ...(sent === undefined ? {} : { rawBody: expand(sent.raw) }),
              headers: {
                ...headers,
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
          const login = PASSWORDS[who];
          if (path === "/api/v1/auth/logout" && reply.status < 300 && login !== undefined)
            callers[who] = await env.api.login(...login);
        }),
        { numRuns: RUNS_PER_OPERATION },
      );
    }
  }, 600_000);
});
