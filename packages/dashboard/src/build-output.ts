// What a production build of the app leaves in dist/ for the server: shared by the build
// (production-build.ts) and the server, with no imports so that both may load it.

/** Written last by a production build; the server refuses a dist without it. */
export const PRODUCTION_STAMP = ".production";

/** In the built index.html, replaced in each response by the nonce its CSP allows (Vite's `html.cspNonce`). */
export const CSP_NONCE_PLACEHOLDER = "SVC_CSP_NONCE";

/** Built files worth compressing (images and fonts are compressed already). */
export const COMPRESSIBLE_ASSET = /\.(?:js|css|svg|json|txt)$/;
