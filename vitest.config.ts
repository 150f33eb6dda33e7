import { defineConfig } from "vitest/config";

/** Every project's properties draw from the run's seed (docs/development.md "Replaying a random failure"). */
const setupFiles = ["./test/fast-check.setup.ts"];
const MACHINE_TEST = "test/e2e/node-harness.test.ts";

export default defineConfig({
  test: {
    reporters: ["default", "./hack/vitest-summary-reporter.ts"],
    // One control plane (and node, when the machine can run one), one PostgreSQL server and one
    // dashboard build serve every project; files isolate themselves by namespace and database.
    globalSetup: [
      "./test/test-seed.global-setup.ts",
      "./test/control-plane.global-setup.ts",
      "./test/postgres.global-setup.ts",
      "./test/dashboard-build.global-setup.ts",
    ],
    projects: [
      {
        test: {
          name: "unit",
          // Pure functions share one module graph per worker: isolated, the 142 files spent
          // 38 s importing for 8 s of tests (8.7 s in all shared; green in four shuffled orders).
          // Integration files stay isolated: shared, a run once failed 16 tests on state one
          // file left for the next (docs/development.md "Tests").
          isolate: false,
          setupFiles,
          // Three files at a time on two cores (vitest's default there is one): most of an
          // integration file's time is spent waiting on the control plane, a browser or a timer.
          // One at a time the run used 44 % of two cores; two, 70 % (vmstat, 10 s samples) and
          // 834 s for this group; three, 90 % and 695 s. A group shares one worker count.
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
          include: ["packages/*/test/**/*.test.ts", "bench/test/**/*.test.ts", "hack/test/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "**/node_modules/**"],
        },
      },
      {
        test: {
          name: "integration",
          setupFiles,
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
          include: ["packages/*/test/**/*.int.test.ts", "test/e2e/**/*.test.ts"],
          exclude: [MACHINE_TEST, "**/node_modules/**"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // expect.poll's default of 1 s is shorter than one poll of the dashboard's lists or an
          // operator round on a loaded machine: a state that arrives in 1.5 s is not a failure.
          expect: { poll: { timeout: 15_000 } },
        },
      },
      {
        // Stops the machine's one node and lists the machine's processes, mounts and links before
        // and after a `svc dev` of its own, which must be equal: alone, after the files that use
        // the node or start processes.
        test: {
          name: "machine",
          setupFiles,
          include: [MACHINE_TEST],
          sequence: { groupOrder: 2 },
          maxWorkers: 1,
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        // Faults and load (docs/reliability.md): after every other test, one file at a time, as
        // they kill the shared control plane's components and load the machine's two cores.
        test: {
          name: "reliability",
          setupFiles,
          include: ["test/reliability/**/*.test.ts"],
          sequence: { groupOrder: 3 },
          maxWorkers: 1,
          fileParallelism: false,
          testTimeout: 600_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
