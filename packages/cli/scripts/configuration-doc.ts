// docs/configuration.md as it must read now: generated from the commands' own settings and
// formatted as the repository's Prettier would, so that a test can tell when it is stale.
import { join } from "node:path";
import { format, resolveConfig } from "prettier";
import { commands } from "../src/commands.ts";
import { configurationReference } from "../src/help.ts";

export const CONFIGURATION_DOC = join(import.meta.dirname, "../../../docs/configuration.md");

export async function configurationMarkdown(): Promise<string> {
  const sections = [];
  for (const [command, { summary, settings }] of Object.entries(commands)) {
    const { uses, notes } = await settings();
    sections.push({ command, summary, settings: uses, ...(notes === undefined ? {} : { notes }) });
  }
  const options = (await resolveConfig(CONFIGURATION_DOC)) ?? {};
  return format(configurationReference(sections), { ...options, parser: "markdown" });
}
