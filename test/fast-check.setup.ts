// Every property of every test file draws from the run's seed (test/test-seed.global-setup.ts),
// so that SVC_TEST_SEED replays a run's inputs; fast-check names the seed in a failure's message.
import fc from "fast-check";
import { newTestSeed, parseTestSeed } from "./support/test-seed.ts";

// A file run without the global setup (an editor's runner) still gets a seed of its own.
fc.configureGlobal({ seed: parseTestSeed(process.env["SVC_TEST_SEED"]) ?? newTestSeed() });
