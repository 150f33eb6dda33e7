// Writes deploy/crds/*.yaml from the schemas in packages/core/src (the single source of truth).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { allCrds, renderCrdYaml } from "../src/index.ts";

const dir = join(import.meta.dirname, "../../../deploy/crds");
mkdirSync(dir, { recursive: true });
for (const definition of allCrds()) {
  const file = join(dir, `${definition.metadata.name}.yaml`);
  writeFileSync(file, renderCrdYaml(definition));
  console.log(`wrote ${file}`);
}
