// Writes deploy/crds/*.yaml, and the Helm chart's copies in deploy/helm/svc/crds, from the
// schemas in packages/core/src (the single source of truth).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { allCrds, renderCrdYaml } from "../src/index.ts";

const root = join(import.meta.dirname, "../../..");
for (const dir of [join(root, "deploy/crds"), join(root, "deploy/helm/svc/crds")]) {
  mkdirSync(dir, { recursive: true });
  for (const definition of allCrds()) {
    const file = join(dir, `${definition.metadata.name}.yaml`);
    writeFileSync(file, renderCrdYaml(definition));
    console.log(`wrote ${file}`);
  }
}
