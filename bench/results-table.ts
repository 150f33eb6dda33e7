// Regenerates the summary table at the top of bench/RESULTS.md from the `bench-result` blocks of
// its sections (the format is described at the top of that file), so the table cannot drift from
// the figures it sums up. `node bench/results-table.ts` rewrites the table in place;
// `--check` exits 1, changing nothing, when the committed table differs from the sections.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderResultsFile } from "./results-table/render.ts";

const RESULTS_FILE = join(import.meta.dirname, "RESULTS.md");

function main(args: readonly string[]): number {
  const check = args.includes("--check");
  const current = readFileSync(RESULTS_FILE, "utf8");
  const rendered = renderResultsFile(current);
  if (!rendered.ok) {
    console.error(`bench/RESULTS.md: ${rendered.message}`);
    return 1;
  }
  if (rendered.value === current) {
    console.log("bench/RESULTS.md: the summary table is current");
    return 0;
  }
  if (check) {
    console.error(
      "bench/RESULTS.md: the summary table differs from the sections' bench-result blocks; run `node bench/results-table.ts`",
    );
    return 1;
  }
  writeFileSync(RESULTS_FILE, rendered.value);
  console.log("bench/RESULTS.md: summary table rewritten");
  return 0;
}

process.exitCode = main(process.argv.slice(2));
