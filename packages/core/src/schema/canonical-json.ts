/**
 * JSON with object keys sorted: an object read back from the API server (whose key order is
 * Go's field order) compares by content with the one svc would write, and equal rules give
 * equal text whatever their key order.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
