import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { productionBuild } from "./production-build.ts";
import { CSP_NONCE_PLACEHOLDER } from "./src/build-output.ts";

const appDir = fileURLToPath(new URL("app", import.meta.url));

// The app is built once into packages/dashboard/dist and served by `svc dashboard`, which also
// proxies /api/*; `make dashboard` rebuilds it. No dev server: what is tested is what ships.
export default defineConfig({
  root: appDir,
  base: "/",
  plugins: [react(), productionBuild()],
  // The server puts each response's nonce in index.html's <meta property="csp-nonce">.
  html: { cspNonce: CSP_NONCE_PLACEHOLDER },
  build: {
    outDir: fileURLToPath(new URL("dist", import.meta.url)),
    emptyOutDir: true,
    // No inline scripts or styles anywhere, so the server's CSP can forbid them.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    // No source maps: the server would publish them with the app.
    sourcemap: false,
    // The budget that matters is initial JS ≤ 300 KB gzip, measured by bench/dashboard/run.ts;
    // Vite's 500 kB (minified, uncompressed) warning would only repeat it less precisely.
    chunkSizeWarningLimit: 1000,
  },
});
