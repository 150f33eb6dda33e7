// Writes the checks of the REST request bodies the dashboard's forms send (`*.generated.ts`
// beside their schemas in packages/core/src), compiled ahead of time from the TypeBox schemas
// the API validates with (the single source of truth): see body-checks.ts.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BODY_CHECK_FILES, renderBodyChecks } from "./body-checks.ts";

const core = join(import.meta.dirname, "..");
for (const file of BODY_CHECK_FILES) {
  const path = join(core, file.path);
  writeFileSync(path, renderBodyChecks(file));
  console.log(`wrote ${path}`);
}
