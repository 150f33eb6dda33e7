import type { Reporter, TestModule } from "vitest/node";

/**
 * Prints the closing line CI reads: "N passed, N failed, N skipped". A file that fails to load
 * (its tests never ran) and an unhandled error each count as a failure, so a broken file can
 * never look like a smaller green run.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[], unhandledErrors: readonly unknown[]): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      let tests = 0;
      for (const test of module.children.allTests()) {
        tests++;
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
      if (tests === 0 && module.state() === "failed") failed++;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
