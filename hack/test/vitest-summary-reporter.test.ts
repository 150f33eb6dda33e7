import { describe, expect, it } from "vitest";
import { slowestFiles } from "../vitest-summary-reporter.ts";

describe("slowestFiles: where a run's time went", () => {
  it("lists the slowest files first, at most the count asked for, in seconds", () => {
    const files = [
      { path: "a.test.ts", durationMs: 1_200 },
      { path: "b.test.ts", durationMs: 95_000 },
      { path: "c.test.ts", durationMs: 30_400 },
    ];
    expect(slowestFiles(files, 2)).toEqual(["   95.0 s  b.test.ts", "   30.4 s  c.test.ts"]);
  });
});
