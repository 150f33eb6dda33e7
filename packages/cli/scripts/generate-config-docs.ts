// Writes docs/configuration.md from the commands' own settings (`make docs`).
import { writeFile } from "node:fs/promises";
import { CONFIGURATION_DOC, configurationMarkdown } from "./configuration-doc.ts";

await writeFile(CONFIGURATION_DOC, await configurationMarkdown());
console.log(`wrote ${CONFIGURATION_DOC}`);
