// Dashboard benchmark (issues 10 and 22): the production build, served by the real dashboard
// server in front of the real API server and a real control plane, in Debian's headless Chromium.
// Every figure is stated beside the floor it is compared with, measured in the same run:
//   - initial JS, gzip: the app's entry chunk and what index.html preloads, against React and
//     ReactDOM alone bundled by the same Vite (target ≤ 300 KB);
//   - the flag list of a namespace with `--flags` flags (a fleet; the list is paged) against one
//     with `--small` flags (one page, the floor): time to the first row painted, frame interval
//     p95 while scrolling, search keystroke → rows of the result, bytes an idle tab downloads per
//     poll; and whether 20 keystrokes typed 40 ms apart into the search all stay.
//
//   node bench/dashboard/run.ts [--flags 10000] [--small 100] [--runs 5]
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { buildApiServer, parseApiConfig } from "@svc/api";
import { API_GROUP, API_GROUP_VERSION, API_VERSION, FEATURE_FLAG } from "@svc/core";
import { buildDashboardServer } from "@svc/dashboard";
import { ClusterRegistry, ensureNamespace, installCrds } from "@svc/kube";
import { startLocalControlPlane } from "@svc/localkube";
import { build } from "vite";
import react from "@vitejs/plugin-react";
import { launchChromium } from "../../test/support/chromium.ts";
import { pool } from "../support/pool.ts";
import { percentile, pollBytes, scrollFrames, searchScript, timeToSelector } from "./page-measures.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const DIST = join(ROOT, "packages/dashboard/dist");
const { values: args } = parseArgs({
  options: {
    flags: { type: "string", default: "10000" },
    small: { type: "string", default: "100" },
    runs: { type: "string", default: "5" },
  },
});
const largeFlags = Number(args.flags);
const smallFlags = Number(args.small);
const totalFlags = largeFlags + smallFlags;
const runs = Number(args.runs);
const PASSWORD = "bench-admin-password";

const median = (values: number[]) => percentile(values, 0.5);
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

async function seedFlags(kc: KubeConfig, namespace: string, count: number): Promise<void> {
  await ensureNamespace(kc, namespace);
  const objects = kc.makeApiClient(CustomObjectsApi);
  const numbers = Array.from({ length: count }, (_, i) => i);
  await pool(numbers, 16, (i) =>
    objects.createNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace,
      plural: FEATURE_FLAG.plural,
      body: {
        apiVersion: API_GROUP_VERSION,
        kind: FEATURE_FLAG.kind,
        metadata: { name: `flag-${String(i).padStart(5, "0")}` },
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

/** The bytes of an answer as sent, compressed (fetch() would decompress them). */
function compressedBytes(url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { authorization: `Bearer ${token}`, "accept-encoding": "br" } }, (response) => {
      let bytes = 0;
      response.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.on("end", () => {
        resolve(bytes);
      });
    }).on("error", reject);
  });
}

/** Each changes the count of matches in both lists (flag-00000…), so each result is seen. */
const QUERIES = ["flag-0000", "flag-00000", "flag-0000", "", "flag-0000", "flag-00000", "flag-0000", ""];
const TYPED = "flag-0000 typed fast!";

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
  await seedFlags(kc, "bench-small", smallFlags);
  await seedFlags(kc, "bench-large", largeFlags);
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
    await page.goto(`${url}/login`);
    await page.evaluate(`localStorage.setItem("svc.session", ${JSON.stringify(JSON.stringify(login))})`);
    const firstRow = "tbody tr td a";
    const token = (login as { token: string }).token;
    const measure = async (namespace: string) => {
      const list = `${url}/flags?cluster=local&namespace=${namespace}`;
      // The first load warms the HTTP cache as a returning user has it; the others are timed.
      const paint: number[] = [];
      for (let i = 0; i < runs + 1; i++) {
        const time = await timeToSelector(page, list, firstRow);
        if (i > 0) paint.push(time);
      }
      const poll = await pollBytes(page, 10_000);
      // The same with the first flag toggled every 2 s: each poll then downloads its page again.
      const stop = new AbortController();
      const toggles = (async () => {
        for (let enabled = false; !stop.signal.aborted; enabled = !enabled) {
          await fetch(`${apiUrl}/api/v1/flags/${namespace}/flag-00000/toggle?clusterId=local`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify({ enabled }),
          });
          await new Promise((done) => setTimeout(done, 2000));
        }
      })();
      const changingPoll = await pollBytes(page, 10_000);
      stop.abort();
      await toggles;
      const frames = await scrollFrames(page, 40, 600);
      const rowsLoaded = await page.evaluate<number>(
        `Number(document.querySelector("table")?.getAttribute("aria-rowcount")) - 1`,
      );
      await timeToSelector(page, list, firstRow);
      const search = await page.evaluate<number[]>(`${searchScript()}(${JSON.stringify(QUERIES)})`);
      await timeToSelector(page, list, firstRow);
      const box = page.getByRole("searchbox", { name: "Search flags" });
      await box.pressSequentially(TYPED, { delay: 40 });
      const kept = (await box.inputValue()) === TYPED;
      return { paint, poll, changingPoll, frames, rowsLoaded, search, kept };
    };
    const small = await measure("bench-small");
    const large = await measure("bench-large");
    const listJson = async (query: string) =>
      (
        await fetch(`${apiUrl}/api/v1/flags?clusterId=local&namespace=bench-large${query}`, {
          headers: { authorization: `Bearer ${(login as { token: string }).token}` },
        })
      ).text();
    const firstPageJson = (await listJson("&limit=100")).length;
    const wholeJson = (await listJson("")).length;
    const wholeBrotli = await compressedBytes(
      `${url}/api/v1/flags?clusterId=local&namespace=bench-large`,
      token,
    );

    const ms = (value: number) => `${Math.round(value)} ms`;
    const perPoll = ({ bytes, polls }: { bytes: number; polls: number }) =>
      polls === 0 ? NaN : bytes / polls;
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
    const lines = [
      `| initial JS (gzip) | ${kb(appGzip)} | React + ReactDOM alone: ${kb(floorGzip)} | ${(appGzip / floorGzip).toFixed(2)}× the floor (target ≤ 300 KB) |`,
      `| first row painted (median of ${runs} loads) | ${ms(median(large.paint))} | ${ms(median(small.paint))} | ${ratio(median(large.paint), median(small.paint))} |`,
      `| scroll frame interval p95 / max (40 wheel turns of 600 px) | ${ms(percentile(large.frames, 0.95))} / ${ms(Math.max(...large.frames))} (${large.rowsLoaded} rows loaded at the end) | ${ms(percentile(small.frames, 0.95))} / ${ms(Math.max(...small.frames))} | ${ratio(percentile(large.frames, 0.95), percentile(small.frames, 0.95))} |`,
      `| search keystroke → rows of the result (median / max of ${QUERIES.length}) | ${ms(median(large.search))} / ${ms(Math.max(...large.search))} (server, debounced 250 ms) | ${ms(median(small.search))} / ${ms(Math.max(...small.search))} (in the browser) | ${ratio(median(large.search), median(small.search))} |`,
      `| bytes a tab downloads per poll, list unchanged (10 s) | ${Math.round(perPoll(large.poll))} B (${large.poll.polls} polls) | ${Math.round(perPoll(small.poll))} B (${small.poll.polls} polls) | ${ratio(perPoll(large.poll), perPoll(small.poll))} |`,
      `| bytes a tab downloads per poll, its first flag toggled every 2 s (10 s) | ${Math.round(perPoll(large.changingPoll))} B (${large.changingPoll.polls} polls) | ${Math.round(perPoll(small.changingPoll))} B (${small.changingPoll.polls} polls) | ${ratio(perPoll(large.changingPoll), perPoll(small.changingPoll))} |`,
      `| a changed list downloaded whole (before paging), through the dashboard, brotli | ${kb(wholeBrotli)} | | ${ratio(wholeBrotli, perPoll(large.changingPoll))} of the paged poll |`,
      `| ${TYPED.length} keystrokes typed 40 ms apart, all kept | ${large.kept ? "yes" : "no"} | ${small.kept ? "yes" : "no"} | |`,
      `| list JSON: first page (what the dashboard loads) / whole list (uncompressed) | ${kb(firstPageJson)} | whole ${largeFlags}-flag list: ${kb(wholeJson)} | ${ratio(firstPageJson, wholeJson)} |`,
    ];
    process.stdout.write(
      `| measure | ${largeFlags} flags (paged) | ${smallFlags} flags (floor, same run) | ratio |\n| --- | --- | --- | --- |\n${lines.join("\n")}\n`,
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
