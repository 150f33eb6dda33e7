// Starts one real PostgreSQL server (Debian's package) for the integration tests; each test file
// creates its own database on it (testPostgresDatabase in test/support/postgres.ts).
import type { TestProject } from "vitest/node";
import { startPostgresServer } from "./support/postgres-server.ts";
import { unitTestsOnly } from "./support/projects.ts";

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (unitTestsOnly(project)) return undefined;
  const server = await startPostgresServer();
  project.provide("postgresUrl", server.url);
  return () => server.stop();
}
