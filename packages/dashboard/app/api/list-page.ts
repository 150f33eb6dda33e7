/**
 * The API's paged lists (docs/api.md "Paged lists") as the app reads them: a page of `limit`
 * items and the `continue` of the next, until a page has none.
 */

/** One page of a list in Kubernetes' list shape. */
export interface ListPage<T> {
  items: T[];
  metadata: { continue?: string; remainingItemCount: number };
}

/** Items per page the app asks for: a screenful several times over, ~40 KB of flags. */
export const LIST_PAGE_SIZE = 100;

/**
 * Whether a list is larger than one page: its first page continues. Then the server pages (and
 * searches) it; otherwise the app holds it whole.
 */
export function isPagedList(first: ListPage<unknown> | undefined): boolean {
  return first?.metadata.continue !== undefined;
}

/** The items of the pages loaded so far, in order, and how many the whole list holds. */
export function loadedItems<T>(pages: readonly ListPage<T>[]): { items: T[]; total: number } {
  const items = pages.flatMap((page) => page.items);
  return { items, total: items.length + (pages.at(-1)?.metadata.remainingItemCount ?? 0) };
}
