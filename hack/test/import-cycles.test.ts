import { describe, expect, it } from "vitest";
import { importCycles } from "../import-cycles.ts";

describe("importCycles", () => {
  it("finds a cycle of two modules and a longer one, not a chain", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["a", "c"]],
      ["c", ["d"]],
      ["d", ["e"]],
      ["e", ["c"]],
      ["f", ["a"]],
    ]);
    expect(importCycles(graph)).toEqual(
      expect.arrayContaining([
        ["a", "b"],
        ["c", "d", "e"],
      ]),
    );
    expect(importCycles(graph)).toHaveLength(2);
  });
  it("finds a module that imports itself and nothing in an acyclic graph", () => {
    expect(importCycles(new Map([["a", ["a"]]]))).toEqual([["a"]]);
    expect(
      importCycles(
        new Map([
          ["a", ["b"]],
          ["b", []],
        ]),
      ),
    ).toEqual([]);
  });
});
