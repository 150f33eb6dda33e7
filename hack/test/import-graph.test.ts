import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exportTarget, importsOf, ROOT } from "../import-graph.ts";

describe("exportTarget: a package's exports map, as Node resolves it", () => {
  const exports = { ".": "./src/index.ts", "./browser": "./src/browser.ts", "./flags/*": "./src/flags/*.ts" };
  it("takes an exact subpath first, then a pattern", () => {
    expect(exportTarget(exports, ".")).toBe("./src/index.ts");
    expect(exportTarget(exports, "./browser")).toBe("./src/browser.ts");
    expect(exportTarget(exports, "./flags/values")).toBe("./src/flags/values.ts");
  });
  it("knows no subpath the map does not export", () => {
    expect(exportTarget(exports, "./basics")).toBeUndefined();
    expect(exportTarget(exports, "./flags/")).toBeUndefined();
  });
});

describe("importsOf", () => {
  it("follows relative and workspace subpath imports, not npm packages", () => {
    const imports = importsOf(join(ROOT, "packages/sidecar/src/config.ts"));
    expect(imports).toContain(join(ROOT, "packages/core/src/vocabulary.ts"));
    expect(imports).toContain(join(ROOT, "packages/core/src/schema/settings.ts"));
    expect(imports.every((file) => file.startsWith(ROOT))).toBe(true);
  });
});
