import { defineConfig } from "vitest/config";

/** Every project's properties draw from the run's seed (docs/development.md "Replaying a random failure"). */
const setupFiles = ["./test/fast-check.setup.ts"];

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
          setupFiles,
          // Group 1, not the default 0: with one worker (two cores), vitest runs group-0 files in a
          // group of their own after every numbered group, which would put them after reliability.
          sequence: { groupOrder: 1 },
          include: ["packages/*/test/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "**/node_modules/**"],
        },
      },
      {
        test: {
          name: "integration",
          setupFiles,
          sequence: { groupOrder: 1 },
          include: ["packages/*/test/**/*.int.test.ts", "test/e2e/**/*.test.ts"],
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
          sequence: { groupOrder: 2 },
          maxWorkers: 1,
          fileParallelism: false,
          testTimeout: 600_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
