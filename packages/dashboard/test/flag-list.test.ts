import type { FlagView } from "@svc/core/browser";
import { describe, expect, it } from "vitest";
import {
  countLabel,
  DEFAULT_VIEW,
  flagHref,
  namePrefixOf,
  paramsFromView,
  valueSummary,
  viewFromParams,
  visibleFlags,
} from "../app/flags/list-model.ts";
import { isPagedList, loadedItems } from "../app/api/list-page.ts";

function flag(name: string, patch: Partial<FlagView> = {}): FlagView {
  return {
    name,
    namespace: "shop",
    clusterId: "local",
    type: "boolean",
    defaultValue: "true",
    description: "",
    delivery: { envVar: { selector: { matchLabels: { app: "web" } } } },
    enabled: true,
    resourceVersion: "1",
    createdAt: "2026-11-01T00:00:00Z",
    updatedAt: "2026-11-01T00:00:00Z",
    status: { phase: "Delivered", targets: [], message: "" },
    ...patch,
  };
}

describe("visibleFlags", () => {
  const flags = [
    flag("new-checkout", { description: "The NEW checkout flow", updatedAt: "2026-11-03T00:00:00Z" }),
    flag("dark-mode", { namespace: "web", enabled: false, updatedAt: "2026-11-02T00:00:00Z" }),
    flag("beta-10", { clusterId: "eu", status: { phase: "Degraded", targets: [], message: "x" } }),
    flag("beta-9", { clusterId: "eu" }),
  ];
  const names = (view: Partial<typeof DEFAULT_VIEW>) =>
    visibleFlags(flags, { ...DEFAULT_VIEW, ...view }).map((f) => f.name);

  it("sorts by name naturally, so beta-9 comes before beta-10", () => {
    expect(names({})).toEqual(["beta-9", "beta-10", "dark-mode", "new-checkout"]);
    expect(names({ direction: "desc" })).toEqual(["new-checkout", "dark-mode", "beta-10", "beta-9"]);
  });

  it("searches name, namespace, cluster and description, ignoring case", () => {
    expect(names({ search: "checkout" })).toEqual(["new-checkout"]);
    expect(names({ search: "new checkout" })).toEqual(["new-checkout"]);
    expect(names({ search: "WEB" })).toEqual(["dark-mode"]);
    expect(names({ search: "eu" })).toEqual(["beta-9", "beta-10"]);
    expect(names({ search: "  " })).toHaveLength(4);
  });

  it("sorts by other columns with a stable tie-break", () => {
    expect(names({ sort: "updated", direction: "desc" })).toEqual([
      "new-checkout",
      "dark-mode",
      "beta-9",
      "beta-10",
    ]);
    expect(names({ sort: "state" })).toEqual(["dark-mode", "beta-9", "beta-10", "new-checkout"]);
    expect(names({ sort: "phase" })[0]).toBe("beta-10");
  });

  it("does not change the list it is given", () => {
    const before = flags.map((f) => f.name);
    visibleFlags(flags, { ...DEFAULT_VIEW, direction: "desc" });
    expect(flags.map((f) => f.name)).toEqual(before);
  });
});

describe("the view in the URL", () => {
  it("round-trips, leaving defaults out", () => {
    const view = {
      clusterId: "eu",
      namespace: "shop",
      search: "x y",
      sort: "updated" as const,
      direction: "desc" as const,
    };
    expect(viewFromParams(paramsFromView(view))).toEqual(view);
    expect(paramsFromView(DEFAULT_VIEW).toString()).toBe("");
  });

  it("ignores values it does not know", () => {
    expect(viewFromParams(new URLSearchParams("sort=evil&dir=sideways"))).toEqual(DEFAULT_VIEW);
  });
});

describe("row helpers", () => {
  it("shortens long and multi-line values to one line", () => {
    expect(valueSummary('{\n  "a": 1\n}')).toBe('{ "a": 1 }');
    expect(valueSummary("x".repeat(50), 10)).toBe(`${"x".repeat(9)}…`);
  });

  it("links to the flag's page with each part encoded", () => {
    expect(flagHref({ clusterId: "local", namespace: "shop", name: "a.b" })).toBe("/flags/local/shop/a.b");
  });
});

describe("paged lists", () => {
  const page = (names: string[], remaining: number, next?: string) => ({
    items: names.map((name) => flag(name)),
    metadata: { ...(next === undefined ? {} : { continue: next }), remainingItemCount: remaining },
  });

  it("pages through the server only when the first page continues", () => {
    expect(isPagedList(undefined)).toBe(false);
    expect(isPagedList(page(["a", "b"], 0))).toBe(false);
    expect(isPagedList(page(["a", "b"], 5, "token"))).toBe(true);
  });

  it("shows the loaded pages in order and counts the whole list", () => {
    const loaded = loadedItems([page(["a", "b"], 3, "t1"), page(["c", "d"], 1, "t2")]);
    expect(loaded.items.map((f) => f.name)).toEqual(["a", "b", "c", "d"]);
    expect(loaded.total).toBe(5);
    expect(loadedItems([])).toEqual({ items: [], total: 0 });
  });

  it("searches the server by the name prefix flag names can have", () => {
    expect(namePrefixOf("  New-Checkout ")).toBe("new-checkout");
    expect(namePrefixOf("   ")).toBe("");
  });

  it("says how many flags match of how many", () => {
    expect(countLabel(5, 5)).toBe("5 flags");
    expect(countLabel(2, 5)).toBe("2 of 5 flags");
  });
});
