// Hostile parts of HTTP requests as fast-check arbitraries, shared by the hostile-input suites of
// every server (the API, the sidecar, the dashboard's proxy): path segments, nesting, prototype
// keys, content types, query strings, bodies, callers, and the stored state a refusal must keep;
// and an uploading client on raw TCP, for the lingering close of a refused body.
import { connect } from "node:net";
import fc from "fast-check";
import { validFlagSpec } from "./flag-cases.ts";
import { hostileContext, hostileFlagdFile, hostileTargetingFields } from "./hostile-targeting.ts";

/** Path segments (already percent-encoded where needed) that no well-behaved client sends. */
export const HOSTILE_SEGMENTS = [
  "..",
  "../..",
  "..%2F..%2Fetc%2Fpasswd",
  "%00",
  "a%00b",
  "%2e%2e",
  "__proto__",
  "constructor",
  "prototype",
  "%C3%BC%E2%80%AE%F0%9F%98%80",
  "%FF%FE",
  "x".repeat(300),
  "UPPER",
  "-leading",
  "%20",
  "%0d%0aX-Injected:%201",
];

/** A path segment: one of `valid`, a hostile one, or any string percent-encoded. */
export const segment = (valid: readonly string[]) =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...valid) },
    { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }).map((s) => encodeURIComponent(s)) },
  );

/** JSON arrays nested 500 to 5,000 deep: a recursive reader's stack overflows. */
export const deepNesting = fc
  .integer({ min: 500, max: 5000 })
  .map((depth) => `${"[".repeat(depth)}${"]".repeat(depth)}`);

/** Bodies that try to pollute a prototype, repeat a key, or carry NUL and lone surrogates. */
export const PROTOTYPE_BODIES = [
  '{"__proto__":{"role":"admin","isAdmin":true}}',
  '{"constructor":{"prototype":{"role":"admin"}}}',
  '{"role":"admin","role":"viewer"}',
  '{"name":"a\\u0000b","namespace":"x"}',
  '{"name":"\\ud800"}',
];

/** Content types a JSON endpoint should refuse or ignore, never choke on ("" sends none). */
export const ODD_CONTENT_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "application/json; charset=latin1",
  "multipart/form-data",
  "",
];

/** Query keys the API reads, and some it must ignore. */
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

/** Query pairs, repeated keys included; `namespace` is the suite's own, a valid value. */
export const hostileQuery = (namespace: string) =>
  fc.array(
    fc.tuple(
      fc.constantFrom(...QUERY_KEYS),
      fc.oneof(
        fc.constantFrom("local", "true", "false", "-1", "1e9", "", namespace),
        fc.string({ maxLength: 12 }),
      ),
    ),
    { maxLength: 4 },
  );

/** Stands for a body just over 1 MiB, made when sent (so that a counterexample stays readable). */
export const OVER_1_MIB = "<a JSON body of 1 MiB + 10 bytes>";
export const expandBody = (raw: string) =>
  raw === OVER_1_MIB ? `{"description":"${"x".repeat(1024 * 1024 + 10)}"}` : raw;

/** Raw JSON-ish bodies: any JSON, the API's own fields with wrong types, prototype keys, deep nesting, huge. */
export const hostileJson = (namespace: string) =>
  fc.oneof(
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
    fc
      .record(
        {
          name: fc.oneof(fc.constantFrom("seed", "new-one", "__proto__"), fc.string({ maxLength: 70 })),
          namespace: fc.oneof(fc.constant(namespace), fc.string({ maxLength: 70 })),
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
          ...hostileTargetingFields,
          context: hostileContext,
          flag: fc.oneof(
            fc.jsonValue({ maxDepth: 2 }),
            fc.record(
              {
                ...hostileTargetingFields,
                type: fc.constantFrom("boolean", "string"),
                delivery: fc.constant(validFlagSpec.delivery),
              },
              { requiredKeys: [] },
            ),
          ),
          file: hostileFlagdFile,
          dryRun: fc.oneof(fc.boolean(), fc.string({ maxLength: 5 })),
        },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v)),
    fc.constantFrom(...PROTOTYPE_BODIES),
    deepNesting,
    fc.constant(OVER_1_MIB),
    fc.string({ maxLength: 40 }),
  );

/** No body, or a hostile one as JSON, or under an odd content type ("" sends none). */
export const hostileBody = (namespace: string) =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: hostileJson(namespace).map((raw) => ({ raw, type: "application/json" })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(hostileJson(namespace), fc.constantFrom(...ODD_CONTENT_TYPES))
        .map(([raw, type]) => ({ raw, type })),
    },
  );

/** Who sends a request: a role's live token, an unknown token, none, or another scheme. */
export const CALLERS = ["admin", "editor", "viewer", "bad-token", "none", "malformed"] as const;
export type Caller = (typeof CALLERS)[number];
export const caller = fc.constantFrom(...CALLERS);

/** The Authorization header of a caller; `tokens` holds the roles' live tokens. */
export function authorizationOf(who: Caller, tokens: Readonly<Record<string, string>>): string | undefined {
  const token = tokens[who];
  if (token !== undefined) return `Bearer ${token}`;
  if (who === "bad-token") return `Bearer ${"0".repeat(64)}`;
  if (who === "malformed") return "Basic YWRtaW46YWRtaW4=";
  return undefined;
}

/**
 * Values for a path parameter of the API's OpenAPI document; never a name whose loss would end a
 * suite (the role users, the local cluster on DELETE). The suite has a user fuzz-target and a
 * flag seed in `namespace`.
 */
export function pathParamValues(name: string, method: string, namespace: string): readonly string[] {
  if (name === "namespace") return [namespace, "default", "kube-system"];
  if (name === "name") return ["seed", "ghost"];
  if (name === "username") return ["fuzz-target", "ghost"];
  if (name === "id") return method === "DELETE" ? ["ghost"] : ["local", "ghost"];
  return ["x"];
}

/** An API call as some token, answering the parsed JSON body. */
export type ApiRead = (path: string) => Promise<{ json: unknown }>;

/** What a refused request must leave as it was: users and roles, clusters, the namespace's flags. */
export async function storedState(read: ApiRead, namespace: string): Promise<string> {
  const [users, clusters, flags] = await Promise.all([
    read("/api/v1/users"),
    read("/api/v1/clusters"),
    read(`/api/v1/flags?clusterId=local&namespace=${namespace}`),
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

/** How many times each refused-body case is sent (fewer while developing). */
export const REFUSED_BODY_REPEATS = Number(process.env["SVC_REFUSED_BODY_REPEATS"] ?? 1000);
/** Connections in flight at once, so that the server is busy as under real load. */
const REFUSED_BODY_PARALLEL = 4;
/** An answer not complete within this is missing (every server's request timeout is 30 s). */
const REFUSED_BODY_WAIT_MS = 30_000;
/** The part of the body sent with the head; the rest follows REFUSED_BODY_GAP_MS later. */
const REFUSED_BODY_FIRST_BYTES = 64 * 1024;
const REFUSED_BODY_GAP_MS = 5;

/**
 * One request whose body the server refuses unread: `head` (request line and headers, without
 * the blank line) with `Content-Length` and `body`, on a new raw TCP connection, as a plain
 * uploading client sends it: the whole request first, without waiting for an answer, then the
 * answer is read. The body leaves in two parts a few milliseconds apart (as from a disk or a
 * network), so that the server has answered before all of it arrived. Resolves to the answer's
 * status once its head and Content-Length bytes are read, or 0 when the connection closed (or
 * REFUSED_BODY_WAIT_MS passed) without a complete answer: a server that closes with the body
 * unread resets the connection, the client's write fails, and the answer is lost with it.
 */
function refusedBodyStatus(port: number, head: string, body: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let received = Buffer.alloc(0);
    const complete = (): number | undefined => {
      const end = received.indexOf("\r\n\r\n");
      if (end === -1) return undefined;
      const text = received.subarray(0, end).toString("latin1");
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text)?.[1] ?? NaN);
      if (!(received.length - end - 4 >= length)) return undefined;
      return Number(/^HTTP\/1\.[01] (\d{3}) /.exec(text)?.[1] ?? 0);
    };
    const finish = (status: number) => {
      clearTimeout(timer);
      clearTimeout(rest);
      socket.destroy();
      resolve(status);
    };
    const timer = setTimeout(() => {
      finish(complete() ?? 0);
    }, REFUSED_BODY_WAIT_MS);
    // Read once the whole request is written.
    socket.pause();
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const status = complete();
      if (status !== undefined) finish(status);
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      finish(complete() ?? 0);
    });
    socket.write(`${head}\r\nContent-Length: ${body.length}\r\n\r\n`);
    socket.write(body.subarray(0, REFUSED_BODY_FIRST_BYTES));
    const rest = setTimeout(() => {
      socket.write(body.subarray(REFUSED_BODY_FIRST_BYTES), () => socket.resume());
    }, REFUSED_BODY_GAP_MS);
  });
}

/**
 * The statuses answering REFUSED_BODY_REPEATS requests of `head` with a body of just over 1 MiB
 * (the API's limit), REFUSED_BODY_PARALLEL at a time; 0 for each left without an answer.
 */
export async function refusedBodyStatuses(port: number, head: string): Promise<number[]> {
  const body = Buffer.from(expandBody(OVER_1_MIB));
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: REFUSED_BODY_PARALLEL }, async () => {
      while (next < REFUSED_BODY_REPEATS) {
        next++;
        statuses.push(await refusedBodyStatus(port, head, body));
      }
    }),
  );
  return statuses;
}

/** How many times each status came: `{404: 1000}`, or `{0: 3, 404: 997}` when 3 got no answer. */
export function statusCounts(statuses: readonly number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}
