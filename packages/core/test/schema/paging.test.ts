import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compareKeys,
  decodeContinue,
  encodeContinue,
  listMetadata,
  pageAfter,
  pageGroups,
  parsePageLimit,
  queryFingerprint,
  type FieldError,
  type Page,
  type SortKey,
} from "../../src/index.ts";

const keyOf = (item: readonly [string, string]): SortKey => item;
const sortedItems = (items: Iterable<string>): [string, string][] =>
  [...items].sort().map((id) => [id.slice(0, 1), id.slice(1)] as [string, string]);

describe("pageAfter", () => {
  const list = sortedItems(["aa", "ab", "ba", "bb", "bc"]);

  it("pages from the start, and after a key whether or not the key is still listed", () => {
    expect(pageAfter(list, keyOf, undefined, 2)).toEqual({
      items: [
        ["a", "a"],
        ["a", "b"],
      ],
      after: ["a", "b"],
      remainingItemCount: 3,
    });
    expect(pageAfter(list, keyOf, ["a", "c"], 2)).toEqual({
      items: [
        ["b", "a"],
        ["b", "b"],
      ],
      after: ["b", "b"],
      remainingItemCount: 1,
    });
    expect(pageAfter(list, keyOf, ["b", "b"], 2)).toEqual({ items: [["b", "c"]], remainingItemCount: 0 });
    expect(pageAfter(list, keyOf, ["z"], 2)).toEqual({ items: [], remainingItemCount: 0 });
  });

  it("orders strings by code point and numbers by value, newest-first audit keys included", () => {
    expect(compareKeys(["B"], ["a"])).toBeLessThan(0);
    expect(compareKeys(["t", 9], ["t", 10])).toBeLessThan(0);
    expect(compareKeys(["a"], ["a", "b"])).toBeLessThan(0);
    expect(compareKeys(["a", 1], ["a", 1])).toBe(0);
  });
});

describe("pageGroups", () => {
  const groups = [
    { id: "a", flags: ["x", "y"] },
    { id: "b", flags: [] },
    { id: "c", flags: ["x", "y", "z"] },
  ];
  const page = (after: SortKey | undefined, limit: number) =>
    pageGroups(
      groups,
      (group) => [group.id],
      (group) => group.flags,
      (flag) => [flag],
      after,
      limit,
    );

  it("continues across groups, counting what remains in the groups after a full page", () => {
    expect(page(undefined, 1)).toEqual({
      items: [[groups[0], "x"]],
      after: ["a", "x"],
      remainingItemCount: 4,
    });
    expect(page(["a", "x"], 2)).toEqual({
      items: [
        [groups[0], "y"],
        [groups[2], "x"],
      ],
      after: ["c", "x"],
      remainingItemCount: 2,
    });
    expect(page(["c", "y"], 5)).toEqual({ items: [[groups[2], "z"]], remainingItemCount: 0 });
  });

  it("starts a vanished group's successor from its first item", () => {
    expect(page(["b", "q"], 1)).toEqual({
      items: [[groups[2], "x"]],
      after: ["c", "x"],
      remainingItemCount: 2,
    });
  });
});

describe("continue tokens", () => {
  const flags = queryFingerprint("flags", { clusterId: "local", namespace: undefined });

  it("round-trip the key of the query they came from, and carry no `+/=` for a query string", () => {
    const token = encodeContinue(["local", "shop", "dark-mode"], flags);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeContinue(token, flags, ["string", "string", "string"])).toEqual({
      ok: true,
      value: ["local", "shop", "dark-mode"],
    });
    expect(
      decodeContinue(encodeContinue(["2026-01-01T00:00:00.000Z", 7], "q"), "q", ["string", "number"]).ok,
    ).toBe(true);
  });

  it("refuse a token of another query (other filters, cluster or list), naming query.continue", () => {
    const token = encodeContinue(["local", "shop", "dark-mode"], flags);
    for (const other of [
      queryFingerprint("flags", { clusterId: "eu" }),
      queryFingerprint("flags", { clusterId: "local", namespace: "" }),
      queryFingerprint("workloads", { clusterId: "local" }),
    ]) {
      const refused = decodeContinue(token, other, ["string", "string", "string"]);
      expect(refused).toMatchObject({ ok: false, errors: [{ field: "query.continue" }] });
      expect(JSON.stringify(refused)).toContain("another query");
    }
  });

  const flagKey = ["string", "string", "string"] as const;
  it.each([
    ["not base64url", "a+b/c=", flagKey],
    ["not JSON", Buffer.from("{k:").toString("base64url"), flagKey],
    ["no key", Buffer.from(JSON.stringify({ q: "q" })).toString("base64url"), flagKey],
    ["a key of another length", encodeContinue(["shop", "dark-mode"], "q"), flagKey],
    ["a key of other types", encodeContinue(["shop", "dark-mode", 3], "q"), flagKey],
    ["an unsafe number", encodeContinue(["t", 2 ** 60], "q"), ["string", "number"] as const],
    ["empty", "", flagKey],
  ])("refuse %s as malformed, naming query.continue", (_what, token, shape) => {
    expect(decodeContinue(token, "q", shape)).toEqual({
      ok: false,
      errors: [{ field: "query.continue", message: "is not a continue token of this list" }],
    });
  });

  it("are absent from the last page's metadata, which still counts what remains (none)", () => {
    expect(listMetadata({ remainingItemCount: 0 }, "q")).toEqual({ remainingItemCount: 0 });
    expect(listMetadata({ after: ["a"], remainingItemCount: 4 }, "q")).toEqual({
      continue: encodeContinue(["a"], "q"),
      remainingItemCount: 4,
    });
  });
});

describe("parsePageLimit", () => {
  it("takes 1-1000 as written and names query.limit otherwise", () => {
    const errors: FieldError[] = [];
    expect(parsePageLimit("1", errors)).toBe(1);
    expect(parsePageLimit("1000", errors)).toBe(1000);
    expect(parsePageLimit(undefined, errors)).toBeUndefined();
    expect(errors).toEqual([]);
    for (const bad of ["0", "1001", "-1", "1e2", "+5", "", "ten", "1.5"]) {
      const refused: FieldError[] = [];
      expect(parsePageLimit(bad, refused)).toBeUndefined();
      expect(refused).toEqual([{ field: "query.limit", message: "must be an integer between 1 and 1000" }]);
    }
  });
});

describe("walking a list that changes between pages", () => {
  const id = fc.string({ unit: fc.constantFrom("a", "b", "c", "d", "e"), minLength: 2, maxLength: 4 });
  const change = fc.record({
    insert: fc.array(id, { maxLength: 4 }),
    remove: fc.array(fc.nat(), { maxLength: 4 }),
  });

  const byFirstLetter = (items: [string, string][]) =>
    [...new Set(items.map(([first]) => first))].map((first) => ({
      first,
      rest: items.filter(([f]) => f === first),
    }));
  const pagers = {
    pageAfter: (
      items: [string, string][],
      after: SortKey | undefined,
      limit: number,
    ): Page<[string, string]> => pageAfter(items, keyOf, after, limit),
    pageGroups: (
      items: [string, string][],
      after: SortKey | undefined,
      limit: number,
    ): Page<[string, string]> => {
      const page = pageGroups(
        byFirstLetter(items),
        (group) => [group.first],
        (group) => group.rest,
        ([, rest]) => [rest],
        after,
        limit,
      );
      return { ...page, items: page.items.map(([, item]) => item) };
    },
  };

  it.each(Object.keys(pagers) as (keyof typeof pagers)[])(
    "%s lists every item present throughout exactly once, and nothing twice",
    (pager) => {
      fc.assert(
        fc.property(
          fc.uniqueArray(id, { maxLength: 60 }),
          fc.integer({ min: 1, max: 7 }),
          fc.array(change, { maxLength: 40 }),
          (initial, limit, changes) => {
            const fingerprint = queryFingerprint("flags", { namespace: "shop" });
            const current = new Set(initial);
            const throughout = new Set(initial);
            const seen: string[] = [];
            let token: string | undefined;
            // Each page moves past at least one key of a finite key space: a walk that does not is a bug.
            for (let page = 0; page < 1000; page++) {
              const decoded =
                token === undefined ? undefined : decodeContinue(token, fingerprint, ["string", "string"]);
              if (decoded !== undefined && !decoded.ok) throw new Error("a token of this walk was refused");
              const result = pagers[pager](sortedItems(current), decoded?.value, limit);
              seen.push(...result.items.map(([a, b]) => a + b));
              const last = result.items.at(-1);
              const rest =
                last === undefined ? [] : sortedItems(current).filter((i) => compareKeys(i, last) > 0);
              expect(result.remainingItemCount).toBe(rest.length);
              token = listMetadata(result, fingerprint).continue;
              if (token === undefined) break;
              const { insert, remove } = changes[page % Math.max(changes.length, 1)] ?? {
                insert: [],
                remove: [],
              };
              const listed = [...current];
              for (const index of remove) {
                const gone = listed[index % Math.max(listed.length, 1)];
                if (gone === undefined) continue;
                current.delete(gone);
                throughout.delete(gone);
              }
              for (const added of insert) {
                if (!current.has(added)) throughout.delete(added);
                current.add(added);
              }
            }
            expect(new Set(seen).size).toBe(seen.length);
            for (const item of throughout) expect(seen).toContain(item);
          },
        ),
        { numRuns: 300 },
      );
    },
  );
});
