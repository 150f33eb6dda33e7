import { readFileSync } from "node:fs";
import { join } from "node:path";
import { format } from "prettier";
import { describe, expect, it } from "vitest";
import {
  buildTable,
  headingAnchor,
  parseResults,
  renderResultsFile,
  TABLE_BEGIN,
  TABLE_END,
  type BenchResult,
} from "../results-table/render.ts";

const resultsFile = join(import.meta.dirname, "../RESULTS.md");

function block(result: Partial<BenchResult>): string {
  return ["<!-- bench-result", JSON.stringify(result, null, 2), "-->"].join("\n");
}

const sample: BenchResult = {
  target: "A: one request",
  ratio: "0.5×",
  floor: "a bare server",
  absolute: "5 ms against 10 ms",
  date: "2026-12-01",
  commit: "abc1234",
};

function file(...sections: string[]): string {
  return ["# Results", "", TABLE_BEGIN, "stale", TABLE_END, "", ...sections].join("\n");
}

describe("bench/RESULTS.md", () => {
  it("has the summary table its sections' bench-result blocks give (run `node bench/results-table.ts`)", () => {
    const committed = readFileSync(resultsFile, "utf8");
    const rendered = renderResultsFile(committed);
    expect(rendered).toEqual({ ok: true, value: committed });
  });
});

describe("buildTable", () => {
  it("makes one aligned row per result, linking to its heading, with pipes escaped", () => {
    const table = buildTable([
      { result: sample, section: "A", anchor: "a" },
      { result: { ...sample, target: "B | C", ratio: "2×" }, section: "B", anchor: "b-1" },
    ]);
    expect(table.split("\n")).toEqual([
      "| target         | latest ratio | floor         | absolute figures   | date       | commit  | section   |",
      "| -------------- | ------------ | ------------- | ------------------ | ---------- | ------- | --------- |",
      "| A: one request | 0.5×         | a bare server | 5 ms against 10 ms | 2026-12-01 | abc1234 | [A](#a)   |",
      "| B \\| C         | 2×           | a bare server | 5 ms against 10 ms | 2026-12-01 | abc1234 | [B](#b-1) |",
    ]);
  });

  it("aligns the table as Prettier does, so the file stays formatted", async () => {
    const table = buildTable([
      {
        result: { ...sample, ratio: "0.95× (`/value`), 1.12–1.16×", absolute: "31.2 µs ÷ 28.5 µs" },
        section: "A",
        anchor: "a",
      },
    ]);
    expect(await format(table, { parser: "markdown", printWidth: 110 })).toBe(`${table}\n`);
  });
});

describe("parseResults", () => {
  it("names a row by its ## section and links it to the nearest heading, as GitHub anchors it", () => {
    const parsed = parseResults(
      file(
        "## Sidecar (issue 21)",
        "",
        "### Run at `abc`, 2026-11-22",
        "",
        block(sample),
        "",
        "## Sidecar (issue 21)",
      ),
    );
    expect(parsed).toEqual({
      ok: true,
      value: [{ result: sample, section: "Sidecar (issue 21)", anchor: "run-at-abc-2026-11-22" }],
    });
  });

  it("ignores a block shown inside fenced code", () => {
    expect(parseResults(file("## A", "", "```", block(sample), "```"))).toEqual({ ok: true, value: [] });
  });

  it("refuses a block that is not closed, not JSON, or lacks a field", () => {
    expect(parseResults(file("## A", "", "<!-- bench-result", "{}"))).toMatchObject({ ok: false });
    expect(parseResults(file("## A", "", "<!-- bench-result", "{", "-->"))).toMatchObject({ ok: false });
    const withoutCommit = Object.fromEntries(Object.entries(sample).filter(([field]) => field !== "commit"));
    expect(parseResults(file("## A", "", block(withoutCommit)))).toEqual({
      ok: false,
      message: "line 9: missing or empty field(s) commit",
    });
    expect(parseResults(file("## A", "", block({ ...sample, date: "22 Nov" })))).toMatchObject({ ok: false });
    expect(parseResults(file("## A", "", block({ ...sample, extra: "x" } as BenchResult)))).toMatchObject({
      ok: false,
    });
  });
});

describe("headingAnchor", () => {
  it("numbers a repeated heading as GitHub does", () => {
    const seen = new Map<string, number>();
    expect(
      ["Full run, 02:52 (f5c1ad4)", "Operator", "Operator"].map((text) => headingAnchor(text, seen)),
    ).toEqual(["full-run-0252-f5c1ad4", "operator", "operator-1"]);
  });
});

describe("renderResultsFile", () => {
  it("replaces a stale table with the sections' results and leaves the rest of the file alone", () => {
    const stale = file("## A", "", block(sample), "");
    const rendered = renderResultsFile(stale);
    expect(rendered.ok).toBe(true);
    if (!rendered.ok) return;
    expect(rendered.value).not.toBe(stale);
    expect(rendered.value).toBe(
      stale.replace("stale", `\n${buildTable([{ result: sample, section: "A", anchor: "a" }])}\n`),
    );
    expect(renderResultsFile(rendered.value)).toEqual({ ok: true, value: rendered.value });
  });

  it("refuses a file without the table's markers or without results", () => {
    expect(renderResultsFile(`## A\n\n${block(sample)}\n`)).toMatchObject({ ok: false });
    expect(renderResultsFile(file("## A"))).toEqual({ ok: false, message: "no bench-result block found" });
  });
});
