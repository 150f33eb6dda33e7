import { fieldPath, TARGETING_MAX_DEPTH } from "@svc/core";

/**
 * The deepest nesting a body may have: a targeting rule at its own limit inside the deepest
 * body that carries one (an import's file.flags.<key>.targeting). A limit keeps a body of
 * thousands of nested arrays from costing more than its size.
 */
export const MAX_BODY_DEPTH = TARGETING_MAX_DEPTH + 8;

/** A deep path is named by its first segments: enough to say which field, short enough to read. */
const NAMED_SEGMENTS = 3;

function tooDeep(path: string): string {
  const segments = path.split(".");
  const named = segments.slice(0, NAMED_SEGMENTS).join(".") + (segments.length > NAMED_SEGMENTS ? "…" : "");
  return `${path === "" ? "request body" : `${named}:`} is nested deeper than ${MAX_BODY_DEPTH} levels`;
}

/**
 * Keys that could reach an object's prototype if a later merge copied them: `__proto__`, and
 * `constructor` holding an object (the shapes Fastify's own parser refuses); or nesting deeper
 * than MAX_BODY_DEPTH. Walked without recursion, whatever the depth.
 */
function refusal(value: unknown): string | undefined {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value, path: "", depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== "object" || next.value === null) continue;
    if (next.depth >= MAX_BODY_DEPTH) return tooDeep(next.path);
    // Reversed, so that the first offending key in document order is the one named.
    for (const [key, child] of Object.entries(next.value).reverse()) {
      const here = fieldPath(next.path, key);
      if (key === "__proto__" || (key === "constructor" && typeof child === "object" && child !== null))
        return `${here}: is not allowed as a key`;
      pending.push({ value: child, path: here, depth: next.depth + 1 });
    }
  }
  return undefined;
}

export type ParsedBody = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * A JSON request body. V8's messages quote the input, and a body may hold a password, so a
 * syntax error says only that; a forbidden key is named, and too deep a nesting refused.
 */
export function parseJsonBody(text: string): ParsedBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: "request body is not valid JSON" };
  }
  const error = refusal(value);
  return error === undefined ? { ok: true, value } : { ok: false, error };
}
