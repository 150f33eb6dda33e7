// The Vite plugin that makes every build of the app a production build, precompressed: the
// server sends only what this plugin stamped (src/build-output.ts).
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import type { Plugin } from "vite";
import { COMPRESSIBLE_ASSET, PRODUCTION_STAMP } from "./src/build-output.ts";

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/**
 * Refuses to build anything but production (React's development build under a caller's
 * NODE_ENV=test was twice the size, with jsxDEV and StrictMode's doubled requests), writes a
 * `.gz` and a `.br` beside each compressible asset at the highest levels (built once, sent many
 * times), then the stamp.
 */
export function productionBuild(): Plugin {
  let outDir = "";
  return {
    name: "svc-production-build",
    apply: "build",
    configResolved(config) {
      if (!config.isProduction || config.mode !== "production") {
        throw new Error(
          `the dashboard is built for production only (mode ${config.mode}, NODE_ENV ${process.env.NODE_ENV}): run \`make dashboard\``,
        );
      }
      outDir = config.build.outDir;
    },
    async writeBundle(_options, bundle) {
      const assets = Object.keys(bundle).filter(
        (file) => file.startsWith("assets/") && COMPRESSIBLE_ASSET.test(file),
      );
      await Promise.all(
        assets.map(async (file) => {
          const path = join(outDir, file);
          const content = await readFile(path);
          await writeFile(`${path}.gz`, await gzipped(content, { level: 9 }));
          await writeFile(
            `${path}.br`,
            await brotli(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
          );
        }),
      );
      await writeFile(
        join(outDir, PRODUCTION_STAMP),
        `production build, ${assets.length} assets precompressed\n`,
      );
    },
  };
}
