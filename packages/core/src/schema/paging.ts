/**
 * Paged lists as Kubernetes pages them (`limit` and an opaque `continue`), decided here so that
 * every list route pages the same way. A page starts after the last item of the page before, by
 * sort key, not at an offset: items added or removed between pages never shift the walk, so an
 * item present throughout is listed exactly once (the property test walks changing lists).
 */
import { createHash } from "node:crypto";
import { fieldPath, type FieldError, type Validated } from "./validation.ts";

export const PAGE_LIMIT_MAX = 1000;

/** A sort key: compared element by element, strings by code point, numbers by value. */
export type SortKey = readonly (string | number)[];
/** The type of each element of a list's sort key, checked when a token comes back. */
export type SortKeyShape = readonly ("string" | "number")[];

export interface Page<T> {
  items: T[];
  /** The key to continue after; absent on the last page. */
  after?: SortKey;
  /** Items after this page (when `after` is set). */
  remainingItemCount: number;
}

/** Kubernetes' list metadata: `continue` only while items remain. */
export interface ListMetadata {
  continue?: string;
  remainingItemCount: number;
}

export function compareKeys(a: SortKey, b: SortKey): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as string | number;
    const y = b[i] as string | number;
    if (typeof x !== typeof y) return typeof x === "number" ? -1 : 1;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * The page of `sorted` (ascending by `keyOf`) that follows `after`. The first item with a key
 * above `after` is found by bisection, so a first page costs the same however long the list.
 */
export function pageAfter<T>(
  sorted: readonly T[],
  keyOf: (item: T) => SortKey,
  after: SortKey | undefined,
  limit: number,
): Page<T> {
  let start = 0;
  if (after !== undefined) {
    let end = sorted.length;
    while (start < end) {
      const middle = (start + end) >>> 1;
      if (compareKeys(keyOf(sorted[middle] as T), after) <= 0) start = middle + 1;
      else end = middle;
    }
  }
  const items = sorted.slice(start, start + limit);
  const remainingItemCount = sorted.length - start - items.length;
  const last = items.at(-1);
  return remainingItemCount > 0 && last !== undefined
    ? { items, after: keyOf(last), remainingItemCount }
    : { items, remainingItemCount };
}

/**
 * The page after `after` across groups listed one after another (a list of several clusters):
 * an item's key is its group's key followed by its own. Groups before the key are skipped whole
 * and only the group holding it is bisected, so no list of every item is built.
 */
export function pageGroups<G, T>(
  groups: readonly G[],
  groupKey: (group: G) => SortKey,
  itemsOf: (group: G) => readonly T[],
  keyOf: (item: T) => SortKey,
  after: SortKey | undefined,
  limit: number,
): Page<[G, T]> {
  const items: [G, T][] = [];
  let remainingItemCount = 0;
  let lastKey: SortKey | undefined;
  for (const group of groups) {
    const prefix = groupKey(group);
    const order = after === undefined ? 1 : compareKeys(prefix, after.slice(0, prefix.length));
    if (order < 0) continue;
    const within = order === 0 ? after?.slice(prefix.length) : undefined;
    const page = pageAfter(itemsOf(group), keyOf, within, limit - items.length);
    for (const item of page.items) items.push([group, item]);
    const last = page.items.at(-1);
    if (last !== undefined) lastKey = [...prefix, ...keyOf(last)];
    // Once the page is full, a group is still bisected (limit 0) to count what remains of it.
    remainingItemCount += page.remainingItemCount;
  }
  return remainingItemCount > 0 && lastKey !== undefined
    ? { items, after: lastKey, remainingItemCount }
    : { items, remainingItemCount: 0 };
}

/**
 * What a token is bound to: the list and its filters (not `limit`, which may change between pages,
 * as Kubernetes allows). Undefined filters are left out, so `?namespace=` and none differ.
 */
export function queryFingerprint(
  list: string,
  filters: Readonly<Record<string, string | undefined>>,
): string {
  const defined = Object.entries(filters)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash("sha256")
    .update(JSON.stringify([list, defined]))
    .digest("base64url")
    .slice(0, 22);
}

/** base64url of JSON: opaque to clients, readable to us, safe in a query string. */
export function encodeContinue(after: SortKey, fingerprint: string): string {
  return Buffer.from(JSON.stringify({ k: after, q: fingerprint })).toString("base64url");
}

const CONTINUE = fieldPath("query", "continue");

/** The key a `continue` token continues after, if it is well formed and from this very query. */
export function decodeContinue(token: string, fingerprint: string, shape: SortKeyShape): Validated<SortKey> {
  let decoded: unknown;
  try {
    decoded = /^[A-Za-z0-9_-]+$/.test(token)
      ? JSON.parse(Buffer.from(token, "base64url").toString("utf8"))
      : null;
  } catch {
    decoded = null;
  }
  const { k, q } = (typeof decoded === "object" && decoded !== null ? decoded : {}) as Record<
    string,
    unknown
  >;
  const wellFormed =
    Array.isArray(k) &&
    typeof q === "string" &&
    k.length === shape.length &&
    k.every(
      (element, i) =>
        typeof element === shape[i] && (typeof element !== "number" || Number.isSafeInteger(element)),
    );
  if (!wellFormed) {
    return { ok: false, errors: [{ field: CONTINUE, message: "is not a continue token of this list" }] };
  }
  if (q !== fingerprint) {
    const message =
      "belongs to another query (other filters or cluster): keep the filters, or start again without it";
    return { ok: false, errors: [{ field: CONTINUE, message }] };
  }
  return { ok: true, value: k as SortKey };
}

/** `limit`: an integer from 1 to PAGE_LIMIT_MAX, in the query string's own spelling (no `+1`, `1e2`). */
export function parsePageLimit(raw: string | undefined, errors: FieldError[]): number | undefined {
  if (raw === undefined) return undefined;
  const value = /^[0-9]{1,8}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= 1 && value <= PAGE_LIMIT_MAX)) {
    errors.push({
      field: fieldPath("query", "limit"),
      message: `must be an integer between 1 and ${PAGE_LIMIT_MAX}`,
    });
    return undefined;
  }
  return value;
}

/** A page's metadata, with the token that continues it. */
export function listMetadata(
  page: Pick<Page<unknown>, "after" | "remainingItemCount">,
  fingerprint: string,
): ListMetadata {
  const { after, remainingItemCount } = page;
  return after === undefined
    ? { remainingItemCount }
    : { continue: encodeContinue(after, fingerprint), remainingItemCount };
}
