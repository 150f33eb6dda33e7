// The fault and load tests' results: each test writes its Markdown section to
// .cache/reliability/<name>.md (and prints it), for docs/reliability.md's "latest run" tables.
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const REPORT_DIR = resolve(import.meta.dirname, "../../.cache/reliability");

export function writeReport(name: string, markdown: string): void {
  mkdirSync(REPORT_DIR, { recursive: true });
  const text = `${markdown.trimEnd()}\n`;
  writeFileSync(join(REPORT_DIR, `${name}.md`), text);
  process.stdout.write(`\n${text}`);
}
