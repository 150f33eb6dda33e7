// Dashboard benchmark (issue 10): the production build, served by the real dashboard server in
// front of the real API server and a real control plane, in Debian's headless Chromium.
// Every figure is stated beside the floor it is compared with, measured in the same run:
//   - initial JS, gzip: the app's entry chunk and what index.html preloads, against React and
//     ReactDOM alone bundled by the same Vite (target ≤ 300 KB);
//   - first render of the flag list with 1,000 flags, from navigation start to the first row
//     painted, against the login page's first paint (target < 1 s);
//   - typing into the search of the list with 5,000 flags: input event to the next frame after
//     the list shows the new result, against the same cycle on an input with no list behind it
//     (target < 100 ms per keystroke).
//
//   node bench/dashboard/run.ts [--flags 5000] [--first-render 1000] [--runs 5]
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { buildApiServer, parseApiConfig } from "@svc/api";
import { API_GROUP, API_GROUP_VERSION, API_VERSION, FEATURE_FLAG } from "@svc/core";
import { buildDashboardServer } from "@svc/dashboard";
import { ClusterRegistry, ensureNamespace, installCrds } from "@svc/kube";
import { startLocalControlPlane } from "@svc/kube/testing";
import type { Page } from "playwright-core";
import { build } from "vite";
import react from "@vitejs/plugin-react";
import { launchChromium } from "../../test/support/chromium.ts";
import { pool } from "../support/pool.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const DIST = join(ROOT, "packages/dashboard/dist");
const { values: args } = parseArgs({
  options: {
    flags: { type: "string", default: "5000" },
    "first-render": { type: "string", default: "1000" },
    runs: { type: "string", default: "5" },
  },
});
const totalFlags = Number(args.flags);
const firstRenderFlags = Number(args["first-render"]);
const runs = Number(args.runs);
const PASSWORD = "bench-admin-password";

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** Gzip size of the JS index.html loads at start: its module script and its modulepreloads. */
function initialJsGzip(dist: string): number {
  const html = readFileSync(join(dist, "index.html"), "utf8");
  const files = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1] ?? "");
  return files.reduce((sum, file) => sum + gzipSync(readFileSync(join(dist, file))).length, 0);
}

/** React + ReactDOM rendering one element, built by the same Vite and plugin: the floor. */
async function reactFloorGzip(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-react-"));
  try {
    writeFileSync(
      join(dir, "index.html"),
      '<div id="root"></div><script type="module" src="./main.jsx"></script>',
    );
    writeFileSync(
      join(dir, "main.jsx"),
      'import { createRoot } from "react-dom/client";\ncreateRoot(document.getElementById("root")).render(<p>hello</p>);\n',
    );
    await build({
      root: dir,
      configFile: false,
      logLevel: "warn",
      plugins: [react()],
      resolve: {
        alias: { react: join(ROOT, "node_modules/react"), "react-dom": join(ROOT, "node_modules/react-dom") },
      },
      build: { outDir: join(dir, "dist"), modulePreload: { polyfill: false } },
    });
    return initialJsGzip(join(dir, "dist"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function seedFlags(kc: KubeConfig, namespace: string, from: number, count: number): Promise<void> {
  await ensureNamespace(kc, namespace);
  const objects = kc.makeApiClient(CustomObjectsApi);
  const numbers = Array.from({ length: count }, (_, i) => from + i);
  await pool(numbers, 16, (i) =>
    objects.createNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace,
      plural: FEATURE_FLAG.plural,
      body: {
        apiVersion: API_GROUP_VERSION,
        kind: FEATURE_FLAG.kind,
        metadata: { name: `flag-${String(i).padStart(4, "0")}` },
        spec: {
          type: "boolean",
          defaultValue: "true",
          description: `Bench flag number ${i}`,
          delivery: { envVar: { selector: { matchLabels: { app: `app-${i % 20}` } } } },
        },
      },
    }),
  );
}

/** Milliseconds from navigation start until `selector` is in the page, read in the page. */
async function timeToSelector(page: Page, url: string, selector: string): Promise<number> {
  await page.goto(url, { waitUntil: "commit" });
  const handle = await page.waitForFunction(
    `document.querySelector(${JSON.stringify(selector)}) ? performance.now() : false`,
    undefined,
    { polling: "raf", timeout: 30_000 },
  );
  return Number(await handle.jsonValue());
}

/**
 * Per query: set the search input's value, then time from the input event to the frame after
 * the result count changed (`waitForChange`), or to the next frame (the floor, no list).
 */
function typingScript(inputSelector: string, waitForChange: boolean): string {
  return `(async (queries) => {
    const input = document.querySelector(${JSON.stringify(inputSelector)});
    const count = () => document.querySelector("p.hint[aria-live]")?.textContent;
    const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set;
    const times = [];
    for (const query of queries) {
      const before = count();
      const start = performance.now();
      setValue.call(input, query);
      input.dispatchEvent(new Event("input", { bubbles: true }));
      await new Promise((done) => {
        const check = () => {
          if (!${waitForChange} || count() !== before || performance.now() - start > 5000) {
            requestAnimationFrame(() => done());
          } else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      });
      times.push(performance.now() - start);
      await new Promise((done) => setTimeout(done, 150));
    }
    return times;
  })`;
}

const QUERIES = ["1", "12", "123", "1234", "123", "12", "1", ""];

const controlPlane = await startLocalControlPlane();
const dir = mkdtempSync(join(tmpdir(), "svc-bench-dashboard-"));
try {
  await build({ configFile: join(ROOT, "packages/dashboard/vite.config.ts"), logLevel: "warn" });
  const appGzip = initialJsGzip(DIST);
  const floorGzip = await reactFloorGzip();

  const kc = controlPlane.kubeConfig();
  await installCrds(kc);
  await ensureNamespace(kc, "svc-system");
  const seedStart = performance.now();
  await seedFlags(kc, "bench-first", 0, firstRenderFlags);
  await seedFlags(kc, "bench-rest", firstRenderFlags, totalFlags - firstRenderFlags);
  process.stderr.write(`seeded ${totalFlags} flags in ${Math.round(performance.now() - seedStart)} ms\n`);

  const registry = await ClusterRegistry.start({
    hubKubeConfig: kc,
    systemNamespace: "svc-system",
    localClusterId: "local",
  });
  // The settings `svc api` reads, as a deployment behind the dashboard would set them.
  const config = parseApiConfig({
    SVC_API_HOST: "127.0.0.1",
    SVC_API_PORT: "0",
    SVC_METRICS_PORT: "0",
    SVC_DATABASE_PATH: join(dir, "svc.sqlite"),
    SVC_ADMIN_PASSWORD: PASSWORD,
    SVC_LOG_LEVEL: "silent",
    SVC_TRUST_PROXY: "true",
  });
  if (!config.ok) throw new Error(JSON.stringify(config.errors));
  const api = await buildApiServer(config.value, { clusters: registry });
  const { url: apiUrl } = await api.listen();
  const dashboard = await buildDashboardServer({
    host: "127.0.0.1",
    port: 0,
    apiUrl,
    apiTimeoutMs: 30_000,
    logLevel: "silent",
  });
  const { url } = await dashboard.listen();
  const login = await (
    await fetch(`${apiUrl}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password: PASSWORD }),
    })
  ).json();
  for (const deadline = Date.now() + 120_000; ;) {
    const listed = (await (
      await fetch(`${apiUrl}/api/v1/flags`, {
        headers: { authorization: `Bearer ${(login as { token: string }).token}` },
      })
    ).json()) as unknown[];
    if (listed.length >= totalFlags) break;
    if (Date.now() > deadline) throw new Error(`only ${listed.length} of ${totalFlags} flags listed`);
    await new Promise((r) => setTimeout(r, 500));
  }

  const browser = await launchChromium();
  try {
    // Playwright's polling predicates are compiled in the page, which the app's CSP (no eval)
    // refuses; lifting the CSP for the measuring context changes nothing the app does.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    const page = await context.newPage();
    // Warm the HTTP cache as a returning user has it, then time cold JS execution per load.
    const loginPaint: number[] = [];
    const listPaint: number[] = [];
    const firstRow = "tbody tr td a";
    for (let i = 0; i < runs + 1; i++) {
      await context.clearCookies();
      await page.goto(`${url}/login`);
      await page.evaluate("localStorage.clear()");
      const floor = await timeToSelector(page, `${url}/login`, "form button[type=submit]");
      await page.evaluate(`localStorage.setItem("svc.session", ${JSON.stringify(JSON.stringify(login))})`);
      const list = await timeToSelector(page, `${url}/flags?cluster=local&namespace=bench-first`, firstRow);
      if (i > 0) {
        loginPaint.push(floor);
        listPaint.push(list);
      }
    }
    const rowsShown = await page.locator("tbody tr td a").count();

    await page.goto(`${url}/flags`);
    await page.waitForFunction(
      `document.querySelector("p.hint[aria-live]")?.textContent?.startsWith("${totalFlags} flags")`,
      undefined,
      {
        timeout: 60_000,
      },
    );
    const typing = await page.evaluate<number[]>(
      `${typingScript("input[type=search]", true)}(${JSON.stringify(QUERIES)})`,
    );
    await page.goto(`${url}/login`);
    await page.evaluate("localStorage.clear()");
    await page.goto(`${url}/login`);
    await page.getByLabel("Username").waitFor();
    const typingFloor = await page.evaluate<number[]>(
      `${typingScript("input[name=username]", false)}(${JSON.stringify(QUERIES)})`,
    );

    const lines = [
      `| initial JS (gzip) | ${kb(appGzip)} | React + ReactDOM alone: ${kb(floorGzip)} | ${(appGzip / floorGzip).toFixed(2)}× the floor (target ≤ 300 KB) |`,
      `| first render, flag list of ${firstRenderFlags} flags (median of ${runs}) | ${Math.round(median(listPaint))} ms (${rowsShown} rows in the page) | login page: ${Math.round(median(loginPaint))} ms | ${(median(listPaint) / median(loginPaint)).toFixed(2)}× the floor (target < 1 s) |`,
      `| search keystroke → list updated, ${totalFlags} flags (median / max of ${QUERIES.length}) | ${Math.round(median(typing))} / ${Math.round(Math.max(...typing))} ms | input without a list: ${Math.round(median(typingFloor))} / ${Math.round(Math.max(...typingFloor))} ms | ${(median(typing) / median(typingFloor)).toFixed(2)}× the floor (target < 100 ms) |`,
    ];
    process.stdout.write(
      `| measure | svc dashboard | floor (same run) | ratio |\n| --- | --- | --- | --- |\n${lines.join("\n")}\n`,
    );
    const out = join(ROOT, "bench/dashboard/.last-run.md");
    mkdirSync(join(ROOT, "bench/dashboard"), { recursive: true });
    writeFileSync(out, lines.join("\n") + "\n");
  } finally {
    await browser.close();
    await dashboard.close();
    await api.close();
    await registry.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  await controlPlane.stop();
}
