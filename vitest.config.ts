import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    reporters: ["default", "./hack/vitest-summary-reporter.ts"],
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
          globalSetup: [
            "./test/control-plane.global-setup.ts",
            "./test/postgres.global-setup.ts",
            "./test/dashboard-build.global-setup.ts",
          ],
          // One control plane serves every file; files isolate themselves by namespace.
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
