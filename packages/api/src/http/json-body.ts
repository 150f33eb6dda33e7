import { fieldPath } from "@svc/core";

/**
 * Keys that could reach an object's prototype if a later merge copied them: `__proto__`, and
 * `constructor` holding an object (the shapes Fastify's own parser refuses).
 */
function forbiddenKey(value: unknown, path: string): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const here = fieldPath(path, key);
    if (key === "__proto__" || (key === "constructor" && typeof child === "object" && child !== null)) {
      return here;
    }
    const deeper = forbiddenKey(child, here);
    if (deeper !== undefined) return deeper;
  }
  return undefined;
}

export type ParsedBody = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * A JSON request body. V8's messages quote the input, and a body may hold a password, so a
 * syntax error says only that; a forbidden key is named.
 */
export function parseJsonBody(text: string): ParsedBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: "request body is not valid JSON" };
  }
  const key = forbiddenKey(value, "");
  return key === undefined ? { ok: true, value } : { ok: false, error: `${key}: is not allowed as a key` };
}
