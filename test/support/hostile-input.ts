// Hostile parts of HTTP requests as fast-check arbitraries, shared by the hostile-input suites of
// every server (the API, the sidecar): path segments, nesting, prototype keys, content types.
import fc from "fast-check";

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
