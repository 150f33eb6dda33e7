import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    reporters: ["default", "./hack/vitest-summary-reporter.ts"],
    // One control plane (and node, when the machine can run one), one PostgreSQL server and one
    // dashboard build serve every project; files isolate themselves by namespace and database.
    globalSetup: [
      "./test/control-plane.global-setup.ts",
      "./test/postgres.global-setup.ts",
      "./test/dashboard-build.global-setup.ts",
    ],
    projects: [
      {
        test: {
          name: "unit",
          include: ["packages/*/test/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "**/node_modules/**"],
        },
      },
      {
        test: {
          name: "integration",
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
          include: ["test/reliability/**/*.test.ts"],
          sequence: { groupOrder: 1 },
          maxWorkers: 1,
          fileParallelism: false,
          testTimeout: 600_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
