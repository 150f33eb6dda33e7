import type { FlagView } from "@svc/core/browser";
import { useCallback, useDeferredValue, useMemo } from "react";
import { useDebouncedValue } from "../ui/useDebouncedCall.ts";
import { isPagedList, loadedItems } from "../api/list-page.ts";
import { namePrefixOf, visibleFlags, type ListView } from "./list-model.ts";
import { useFlagPages } from "./queries.ts";

/** Short enough to feel live, long enough that typing a word asks the server once. */
const SEARCH_DEBOUNCE_MS = 250;

export interface FlagListRows {
  /** The rows to show, in order. */
  flags: FlagView[];
  /** How many flags the search matches, and how many the cluster and namespace filters leave. */
  matching: number;
  total: number;
  /** False once the list is paged: the rows keep the server's order (cluster, namespace, name). */
  sortable: boolean;
}

/**
 * The flag list of a view, decided once the first page is in: a list that fits one page is
 * held whole and searched (any part of name, namespace, cluster, description) and sorted in the
 * browser as before; a larger one is paged by the server, which also searches it (by name
 * prefix, debounced), and the next page loads as the table scrolls near its end.
 */
export function useFlagList(view: ListView) {
  const filter = {
    ...(view.clusterId === "" ? {} : { clusterId: view.clusterId }),
    ...(view.namespace === "" ? {} : { namespace: view.namespace }),
  };
  const namePrefix = useDebouncedValue(namePrefixOf(view.search), SEARCH_DEBOUNCE_MS);
  const whole = useFlagPages(filter, { live: true, enabled: true });
  const paged = isPagedList(whole.data?.pages[0]);
  const searching = paged && namePrefix !== "";
  const searched = useFlagPages({ ...filter, namePrefix }, { live: searching, enabled: searching });
  const source = searching ? searched : whole;

  // Typing stays responsive: the input updates at once, the table when React has time.
  const search = useDeferredValue(view.search);
  const rows = useMemo((): FlagListRows | undefined => {
    if (source.data === undefined || whole.data === undefined) return undefined;
    const all = loadedItems(whole.data.pages);
    if (!paged) {
      const flags = visibleFlags(all.items, { search, sort: view.sort, direction: view.direction });
      return { flags, matching: flags.length, total: all.total, sortable: true };
    }
    const found = loadedItems(source.data.pages);
    return { flags: found.items, matching: found.total, total: all.total, sortable: false };
  }, [source.data, whole.data, paged, search, view.sort, view.direction]);

  const { hasNextPage, isFetchingNextPage, fetchNextPage } = source;
  const loadMore = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  return {
    query: { data: rows, error: source.error, isPending: source.isPending },
    loadMore,
    loadingMore: isFetchingNextPage,
  };
}
