// The static imports of svc's own sources, resolved to files: relative specifiers, and the
// workspace's `@svc/<package>[/<subpath>]` through each package's `exports` map (subpath patterns
// such as `./flags/*` included). npm packages are not followed. One reader for the checks that
// walk imports: the import-cycle check (hack/import-cycles.ts) and localkube's boundary test.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "..");

const IMPORT = /^\s*(?:import|export)\s(?:[^;]*?\sfrom\s)?\s*["']([^"']+)["']/gm;

/** The file an exports map sends `subpath` (".", "./x", "./flags/y") to; a pattern's `*` matches one character or more, as in Node. */
export function exportTarget(exports: Readonly<Record<string, string>>, subpath: string): string | undefined {
  const exact = exports[subpath];
  if (exact !== undefined) return exact;
  for (const [pattern, target] of Object.entries(exports)) {
    const star = pattern.indexOf("*");
    if (star < 0) continue;
    const [prefix, suffix] = [pattern.slice(0, star), pattern.slice(star + 1)];
    if (subpath.startsWith(prefix) && subpath.endsWith(suffix) && subpath.length >= pattern.length)
      return target.replace("*", subpath.slice(prefix.length, subpath.length - suffix.length));
  }
  return undefined;
}

const exportsOf = new Map<string, Record<string, string>>();

/** The file `specifier` names from `from`, or undefined for an npm package or an unknown subpath. */
export function resolveImport(from: string, specifier: string): string | undefined {
  if (specifier.startsWith(".")) return resolve(dirname(from), specifier);
  const workspace = /^@svc\/([^/]+)(\/.*)?$/.exec(specifier);
  if (workspace === null) return undefined;
  const packageDir = join(ROOT, "packages", workspace[1] ?? "");
  let exports = exportsOf.get(packageDir);
  if (exports === undefined) {
    exports = (
      JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
        exports: Record<string, string>;
      }
    ).exports;
    exportsOf.set(packageDir, exports);
  }
  const target = exportTarget(exports, `.${workspace[2] ?? ""}`);
  return target === undefined ? undefined : join(packageDir, target);
}

/** The files `file` imports statically (type imports included), resolved. */
export function importsOf(file: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(IMPORT)].flatMap(([, specifier]) => {
    const target = specifier === undefined ? undefined : resolveImport(file, specifier);
    return target === undefined ? [] : [target];
  });
}
