// Picks the run's seed once, before any worker starts, and prints it: one line in the CI log,
// whatever fails later. Workers inherit it through the environment (test/fast-check.setup.ts).
import { newTestSeed, parseTestSeed } from "./support/test-seed.ts";

export default function setup(): void {
  const given = parseTestSeed(process.env["SVC_TEST_SEED"]);
  const seed = given ?? newTestSeed();
  process.env["SVC_TEST_SEED"] = String(seed);
  process.stdout.write(
    `Random inputs (fast-check) of this run: seed ${seed}${given === undefined ? "" : " (from SVC_TEST_SEED)"}; ` +
      `replay a failure with SVC_TEST_SEED=${seed} npx vitest run <file>\n`,
  );
}
