/**
 * The flag list's decisions, kept pure so they are tested without a browser and stay fast with
 * thousands of flags: which flags a search shows, in which order, and how the view's state is
 * kept in the URL (a filtered, sorted list can be shared and survives a reload).
 */
import type { FlagView } from "@svc/core/browser";

export const SORT_KEYS = ["name", "namespace", "cluster", "type", "state", "phase", "updated"] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export type SortDirection = "asc" | "desc";

export interface ListView {
  clusterId: string;
  namespace: string;
  search: string;
  sort: SortKey;
  direction: SortDirection;
}

export const DEFAULT_VIEW: ListView = {
  clusterId: "",
  namespace: "",
  search: "",
  sort: "name",
  direction: "asc",
};

/** The URL's search parameters → the view; unknown or bad values fall back to the defaults. */
export function viewFromParams(params: URLSearchParams): ListView {
  const sort = params.get("sort");
  return {
    clusterId: params.get("cluster") ?? "",
    namespace: params.get("namespace") ?? "",
    search: params.get("q") ?? "",
    sort: SORT_KEYS.find((key) => key === sort) ?? DEFAULT_VIEW.sort,
    direction: params.get("dir") === "desc" ? "desc" : "asc",
  };
}

/** The view → search parameters, leaving defaults out so plain /flags stays plain. */
export function paramsFromView(view: ListView): URLSearchParams {
  const params = new URLSearchParams();
  if (view.clusterId !== "") params.set("cluster", view.clusterId);
  if (view.namespace !== "") params.set("namespace", view.namespace);
  if (view.search !== "") params.set("q", view.search);
  if (view.sort !== DEFAULT_VIEW.sort) params.set("sort", view.sort);
  if (view.direction !== DEFAULT_VIEW.direction) params.set("dir", view.direction);
  return params;
}

/** A search matches the name, namespace, cluster or description, ignoring case. */
export function matchesSearch(flag: FlagView, search: string): boolean {
  const needle = search.trim().toLowerCase();
  if (needle === "") return true;
  return [flag.name, flag.namespace, flag.clusterId, flag.description].some((text) =>
    text.toLowerCase().includes(needle),
  );
}

const collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });

function sortValue(flag: FlagView, key: SortKey): string {
  switch (key) {
    case "name":
      return flag.name;
    case "namespace":
      return flag.namespace;
    case "cluster":
      return flag.clusterId;
    case "type":
      return flag.type;
    case "state":
      return flag.enabled ? "1" : "0";
    case "phase":
      return flag.status.phase;
    case "updated":
      return flag.updatedAt;
  }
}

/**
 * The rows to show: matching the search, sorted by the chosen column, ties broken by cluster,
 * namespace and name so the order never jumps between refreshes.
 */
export function visibleFlags(
  flags: readonly FlagView[],
  view: Pick<ListView, "search" | "sort" | "direction">,
): FlagView[] {
  const sign = view.direction === "asc" ? 1 : -1;
  const identity = (flag: FlagView) => `${flag.clusterId}\u0000${flag.namespace}\u0000${flag.name}`;
  return flags
    .filter((flag) => matchesSearch(flag, view.search))
    .sort(
      (a, b) =>
        sign * collator.compare(sortValue(a, view.sort), sortValue(b, view.sort)) ||
        collator.compare(identity(a), identity(b)),
    );
}

/**
 * The search box as the API's `namePrefix`: flag names are lower-case DNS labels and the API
 * compares exactly, so the text is trimmed and lower-cased ("" searches nothing).
 */
export function namePrefixOf(search: string): string {
  return search.trim().toLowerCase();
}

/** The count above the table: "N flags", or "M of N flags" when filters leave out some. */
export function countLabel(shown: number, total: number): string {
  return shown === total ? `${total} flags` : `${shown} of ${total} flags`;
}

/** A value as the list shows it: one line, shortened. */
export function valueSummary(value: string, max = 40): string {
  const oneLine = value.replace(/\s+/g, " ");
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}

/** The address of a flag's own page. */
export function flagHref(flag: Pick<FlagView, "clusterId" | "namespace" | "name">): string {
  return `/flags/${encodeURIComponent(flag.clusterId)}/${encodeURIComponent(flag.namespace)}/${encodeURIComponent(flag.name)}`;
}
