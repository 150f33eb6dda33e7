// Random bodies, paths and content types at every endpoint of the API server: whatever arrives,
// the answer is never a 500, and every error is a JSON {error: string}.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostileContext, hostileTargetingFields } from "../../../test/support/hostile-targeting.ts";
import { ADMIN_PASSWORD, BACKENDS, TestApi, testConfig, type Reply } from "./support/harness.ts";

const RUNS = 25;

const username = fc.oneof(
  fc.string({ maxLength: 70 }),
  fc.stringMatching(/^[a-z][a-z0-9._-]{0,8}$/),
  fc.constant("admin"),
);
const password = fc.oneof(fc.string({ maxLength: 80 }), fc.integer(), fc.constant(null));
const role = fc.oneof(
  fc.constantFrom("admin", "editor", "viewer"),
  fc.string({ maxLength: 10 }),
  fc.boolean(),
);
/** Bodies near the real shapes (so that validation's later branches run) and anything at all. */
const jsonBody = fc.oneof(
  fc.record({ username, password, role }, { requiredKeys: [] }),
  fc.record({ username, password, role, extra: fc.jsonValue() }, { requiredKeys: ["extra"] }),
  fc.jsonValue({ maxDepth: 3 }),
  // A flag draft to evaluate, its targeting fields and context hostile.
  fc.record(
    {
      flag: fc.record(
        { ...hostileTargetingFields, type: fc.constantFrom("boolean", "string", "json") },
        { requiredKeys: [] },
      ),
      context: hostileContext,
    },
    { requiredKeys: [] },
  ),
);
const request = fc.record({
  body: fc.oneof(
    jsonBody.map((v) => ({ raw: JSON.stringify(v), type: "application/json" })),
    fc.string({ maxLength: 200 }).map((raw) => ({ raw, type: "application/json" })),
    fc.string({ maxLength: 50 }).map((raw) => ({ raw, type: "text/plain" })),
    fc.constant({ raw: undefined, type: undefined }),
  ),
  name: fc.oneof(username, fc.string({ maxLength: 300 })),
  query: fc.dictionary(
    fc.constantFrom("resource", "action", "actor", "cluster", "since", "until", "limit", "before", "x"),
    fc.string({ maxLength: 30 }),
    { maxKeys: 4 },
  ),
});

function checkReply(endpoint: string, reply: Reply): void {
  expect(reply.status, `${endpoint}: ${reply.text}`).toBeLessThan(500);
  if (reply.status >= 400) {
    expect(reply.headers.get("content-type"), endpoint).toMatch(/^application\/json/);
    expect(reply.json, endpoint).toEqual({ error: expect.any(String) as string });
  } else if (!endpoint.includes("healthz") && !endpoint.includes("readyz")) {
    expect(reply.json, endpoint).not.toBeUndefined();
  }
}

describe.each(BACKENDS)("random requests on $name", (backend) => {
  let api: TestApi;
  let remove: () => Promise<void>;
  let admin = "";
  let viewer = "";

  beforeAll(async () => {
    const db = await backend.open();
    remove = db.remove;
    api = await TestApi.start(testConfig(db.database));
    admin = await api.login("admin", ADMIN_PASSWORD);
    await api.createUser(admin, "fuzz-viewer", "viewer");
    viewer = await api.login("fuzz-viewer", "fuzz-viewer-password");
  });

  afterAll(async () => {
    await api.close();
    await remove();
  });

  const endpoints: [string, (name: string) => string, () => string | undefined][] = [
    ["POST", () => "/api/v1/auth/login", () => undefined],
    ["POST", () => "/api/v1/auth/logout", () => viewer],
    ["GET", () => "/api/v1/auth/me", () => admin],
    ["GET", () => "/api/v1/users", () => admin],
    ["POST", () => "/api/v1/users", () => admin],
    ["PUT", (name) => `/api/v1/users/${encodeURIComponent(name)}`, () => admin],
    ["PUT", (name) => `/api/v1/users/${encodeURIComponent(name)}`, () => viewer],
    ["DELETE", (name) => `/api/v1/users/${encodeURIComponent(name)}`, () => admin],
    ["GET", () => "/api/v1/audit", () => admin],
    ["POST", () => "/api/v1/flags/evaluate", () => viewer],
    ["GET", () => "/api/v1/openapi.json", () => admin],
    ["GET", () => "/healthz", () => undefined],
    ["GET", () => "/readyz", () => undefined],
  ];

  it.each(endpoints)(
    "%s %s never answers 500 and always answers JSON errors",
    async (method, path, token) => {
      await fc.assert(
        fc.asyncProperty(request, async ({ body, name, query }) => {
          const search = new URLSearchParams(query).toString();
          const endpoint = `${method} ${path(name)}${search === "" ? "" : `?${search}`}`;
          const headers: Record<string, string> =
            body.type === undefined ? {} : { "content-type": body.type };
          const reply = await api.call(method, endpoint.slice(method.length + 1), {
            token: token(),
            ...(body.raw === undefined ? {} : { rawBody: body.raw }),
            headers,
          });
          checkReply(endpoint, reply);
        }),
        { numRuns: RUNS },
      );
    },
  );
});
