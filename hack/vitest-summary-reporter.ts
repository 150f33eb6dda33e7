import type { Reporter, TestModule } from "vitest/node";

/** How many of the slowest test files the run lists, so that where the time goes is seen each run. */
const SLOWEST_FILES = 10;

/** The `count` slowest files, slowest first, as "  12.3 s  path" lines. */
export function slowestFiles(
  files: readonly { path: string; durationMs: number }[],
  count = SLOWEST_FILES,
): string[] {
  return [...files]
    .sort((a, b) => b.durationMs - a.durationMs)
    .slice(0, count)
    .map(({ path, durationMs }) => `${(durationMs / 1000).toFixed(1).padStart(7)} s  ${path}`);
}

/**
 * Prints the slowest files, then the closing line CI reads: "N passed, N failed, N skipped". A file that fails outside
 * its tests and an unhandled error each count as a failure, so a broken file can never look
 * like a smaller green run.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[], unhandledErrors: readonly unknown[]): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      let failedHere = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failedHere++;
        else skipped++;
      }
      // A file can fail with no failed test: an import or a beforeAll hook broke, and its
      // tests were skipped. That is a failure, not a smaller green run.
      if (failedHere === 0 && module.state() === "failed") failedHere = 1;
      failed += failedHere;
    }
    const durations = testModules.map((module) => ({
      path: module.relativeModuleId,
      durationMs: module.diagnostic().duration,
    }));
    process.stdout.write(`\nSlowest ${SLOWEST_FILES} test files:\n${slowestFiles(durations).join("\n")}\n`);
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
