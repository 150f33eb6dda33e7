import type { TestProject } from "vitest/node";

/** True when the run selected only the unit project (`vitest run --project unit`): no servers needed. */
export const unitTestsOnly = (project: TestProject): boolean =>
  project.vitest.projects.every((p) => p.name === "unit");
