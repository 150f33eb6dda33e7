// Load on the dashboard (issue 13): 1,000 flags changing while the flag list is open. The real
// `svc api` process (pinned to CPU 0, on the shared control plane, its own namespaces) and the
// real `svc dashboard` process in front of it; an editor signed in through the login form in
// headless Chromium (Debian's) with the list of the test's namespace open. The test creates
// SVC_LOAD_FLAGS flags through the API, then changes each one's value, SVC_LOAD_ROUNDS times:
// 1,000 creations and 3 × 1,000 value changes while the list is open (it refreshes by polling
// every LIVE_REFRESH_MS, api/client.ts).
//
// Asserted: the API answers every change 2xx; the page has no page error, no console error and
// no failed or non-2xx request (a 304 answers a poll of an unchanged list: api/client.ts); the list ends showing every flag and, for a sample of rows found
// with its search box, the final value (bounded waits); memory stays bounded: the page's JS heap
// after GC, the dashboard server's and the API server's JS heap after GC (node-inspector.ts) and
// RSS (process-stats.ts), read before the changes, after them and after a settle. Floor: the same page's heap on the login page and with the same flags
// open and nothing changing. Results: writeReport("dashboard-load").
//
// Smaller runs while developing: SVC_LOAD_FLAGS (default 1000), SVC_LOAD_ROUNDS (default 3).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { ChildProcess } from "node:child_process";
import { freeLoopbackPort, installCrds } from "@svc/kube";
import { superviseProcess, type SupervisedProcess } from "@svc/localkube";
import type { Browser, CDPSession, Page } from "playwright-core";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { memory } from "../../bench/support/process-stats.ts";
import { pool } from "../../bench/support/pool.ts";
import { loginAdmin, startSvcApi } from "../../bench/support/svc-api.ts";
import { LIVE_REFRESH_MS } from "../../packages/dashboard/app/api/client.ts";
import { launchChromium } from "../support/chromium.ts";
import { testKubeConfig, testNamespace } from "../support/kube.ts";
import { heapUsedAfterGcMib, inspectorNodeOptions } from "./node-inspector.ts";
import { writeReport } from "./report.ts";

const FLAGS = Number(process.env["SVC_LOAD_FLAGS"] ?? 1000);
const ROUNDS = Number(process.env["SVC_LOAD_ROUNDS"] ?? 3);
/** Requests in flight at once from the test (the API's writes go to the kube-apiserver). */
const CONCURRENCY = 8;
/** Rows whose final value is read back through the list's search box. */
const SAMPLE = 20;
/**
 * The documented bounds (docs/reliability.md). The page's heap after the changes and a settle
 * may exceed its heap with the same flags open and idle by at most PAGE_HEAP_SLACK_MIB: one
 * refresh of the list is ~0.5 MiB of JSON and its views, and the changes span dozens of
 * refreshes, so keeping each refresh's list (or each row's old value) would exceed it. Each
 * server's JS heap after a GC (read through its inspector: RSS alone grows as V8 defers
 * collection) may exceed its heap with the same flags idle by at most SERVER_HEAP_SLACK_MIB, and
 * its RSS by at most SERVER_RSS_SLACK_MIB (the flags themselves, held by the API's cache by
 * design, are in both): keeping 8 KiB per change over the 3,000 changes would exceed it.
 */
const PAGE_HEAP_SLACK_MIB = 8;
const SERVER_HEAP_SLACK_MIB = 16;
const SERVER_RSS_SLACK_MIB = 64;
/** Longest wait for the list to show what the API holds: several refreshes. */
const LIST_CATCH_UP_MS = 10 * LIVE_REFRESH_MS;

const ROOT = resolve(import.meta.dirname, "../..");
const EDITOR_PASSWORD = "load-editor-password";
const MIB = 1024 * 1024;
const kc = testKubeConfig();
const dir = mkdtempSync(join(tmpdir(), "svc-dashboard-load-"));
let namespace = "";
let api: { child: ChildProcess; url: string };
let dashboard: SupervisedProcess;
let dashboardUrl = "";
let apiInspector = 0;
let dashboardInspector = 0;
let browser: Browser;
let editorToken = "";

const flagName = (i: number) => `load-${String(i).padStart(4, "0")}`;
const selector = { matchLabels: { app: "dashboard-load" } };

beforeAll(async () => {
  await installCrds(kc);
  namespace = await testNamespace(kc, "dash-load");
  const systemNamespace = await testNamespace(kc, "dash-load-svc");
  apiInspector = await freeLoopbackPort();
  api = await startSvcApi(
    {
      // For its live heap after a GC (node-inspector.ts); loopback only.
      NODE_OPTIONS: inspectorNodeOptions(apiInspector),
      KUBECONFIG: inject("kubeconfigPath"),
      SVC_DATABASE_PATH: join(dir, "svc.sqlite"),
      SVC_NAMESPACE: systemNamespace,
      // Behind the dashboard, as deployed.
      SVC_TRUST_PROXY: "true",
    },
    "warn",
  );
  const admin = await loginAdmin(api.url);
  const created = await fetch(`${api.url}/api/v1/users`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${admin}` },
    body: JSON.stringify({ username: "editor", password: EDITOR_PASSWORD, role: "editor" }),
  });
  expect(created.status).toBe(201);
  const login = await fetch(`${api.url}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "editor", password: EDITOR_PASSWORD }),
  });
  editorToken = ((await login.json()) as { token: string }).token;

  const port = await freeLoopbackPort();
  dashboardInspector = await freeLoopbackPort();
  dashboardUrl = `http://127.0.0.1:${port}`;
  dashboard = superviseProcess({
    name: "svc dashboard",
    command: process.execPath,
    args: [join(ROOT, "packages/cli/src/main.ts"), "dashboard"],
    env: {
      ...process.env,
      SVC_DASHBOARD_HOST: "127.0.0.1",
      SVC_DASHBOARD_PORT: String(port),
      SVC_API_URL: api.url,
      SVC_LOG_LEVEL: "warn",
      NODE_OPTIONS: inspectorNodeOptions(dashboardInspector),
    },
    logPath: join(dir, "svc-dashboard.log"),
  });
  await dashboard.waitReady(
    () =>
      fetch(`${dashboardUrl}/healthz`).then(
        (r) => r.ok,
        () => false,
      ),
    60_000,
  );
  browser = await launchChromium();
});

afterAll(async () => {
  await browser.close();
  await dashboard.stop();
  if (api.child.exitCode === null) {
    const exited = new Promise((done) => api.child.once("exit", done));
    api.child.kill("SIGTERM");
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** One write as the editor, straight to the API (not through the page); its status, 0 when it failed. */
async function write(method: "POST" | "PUT", path: string, body: unknown): Promise<number> {
  try {
    const reply = await fetch(`${api.url}${path}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${editorToken}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    await reply.arrayBuffer();
    return reply.status;
  } catch {
    return 0;
  }
}

/** The page's JS heap in MiB after a full garbage collection, from the DevTools protocol. */
async function pageHeapMib(cdp: CDPSession): Promise<number> {
  await cdp.send("HeapProfiler.collectGarbage");
  await cdp.send("HeapProfiler.collectGarbage");
  const { metrics } = await cdp.send("Performance.getMetrics");
  return (metrics.find((m) => m.name === "JSHeapUsedSize")?.value ?? NaN) / MIB;
}

/** What the page must never do: errors, console errors, requests that fail or answer non-2xx. */
function watchPage(page: Page): string[] {
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`);
  });
  page.on("requestfailed", (request) =>
    problems.push(`failed: ${request.method()} ${request.url()} ${request.failure()?.errorText ?? ""}`),
  );
  page.on("response", (response) => {
    // 304: a poll of an unchanged list, answered without its body (conditional GET).
    if (response.status() < 200 || (response.status() >= 300 && response.status() !== 304))
      problems.push(`${response.status()}: ${response.request().method()} ${response.url()}`);
  });
  return problems;
}

it("1,000 flags created and changed while the list is open: no error anywhere, the list ends right, memory bounded", async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems = watchPage(page);
  const cdp = await context.newCDPSession(page);
  await cdp.send("Performance.enable");
  const servers = async () => ({
    api: { ...memory(api.child.pid ?? 0), heapMb: await heapUsedAfterGcMib(apiInspector) },
    dashboard: { ...memory(dashboard.pid ?? 0), heapMb: await heapUsedAfterGcMib(dashboardInspector) },
  });

  await page.goto(`${dashboardUrl}/login`);
  await page.getByLabel("Username").waitFor();
  const loginHeap = await pageHeapMib(cdp);
  await page.getByLabel("Username").fill("editor");
  await page.getByLabel("Password").fill(EDITOR_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
  await page.goto(`${dashboardUrl}/flags?namespace=${namespace}&cluster=local`);
  // A namespace is chosen, so the empty list is "no match" rather than "no flags yet".
  await page.getByText("No flag matches these filters").waitFor();
  // Requests of the sign-in page that the navigation to the list cancelled are not the list's.
  await sleep(LIVE_REFRESH_MS);
  problems.splice(0);
  const emptyHeap = await pageHeapMib(cdp);
  const atStart = await servers();

  // 1,000 creations while the list is open.
  const statuses = new Map<number, number>();
  const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
  const indices = Array.from({ length: FLAGS }, (_, i) => i);
  let started = performance.now();
  await pool(indices, CONCURRENCY, async (i) => {
    count(
      await write("POST", "/api/v1/flags", {
        name: flagName(i),
        namespace,
        clusterId: "local",
        type: "string",
        defaultValue: `created-${i}`,
        description: `Dashboard load flag ${i}`,
        delivery: { envVar: { selector } },
      }),
    );
  });
  const createSeconds = (performance.now() - started) / 1000;
  started = performance.now();
  await page.getByText(`${FLAGS} flags`, { exact: true }).waitFor({ timeout: LIST_CATCH_UP_MS });
  const createdShownSeconds = (performance.now() - started) / 1000;

  // The floor: the same flags open and nothing changing, for a few refreshes.
  await sleep(3 * LIVE_REFRESH_MS);
  const idleHeap = await pageHeapMib(cdp);
  const before = await servers();

  // Each flag's value changed, ROUNDS times, while the list is open.
  started = performance.now();
  for (let round = 1; round <= ROUNDS; round++) {
    await pool(indices, CONCURRENCY, async (i) => {
      count(
        await write("PUT", `/api/v1/flags/${namespace}/${flagName(i)}?clusterId=local`, {
          type: "string",
          defaultValue: `changed-${round}-${i}`,
          description: `Dashboard load flag ${i}`,
          delivery: { envVar: { selector } },
        }),
      );
    });
  }
  const changeSeconds = (performance.now() - started) / 1000;
  const afterHeap = await pageHeapMib(cdp);
  const after = await servers();

  // The list ends showing the final state: every flag, and the final value of a sample of rows
  // (virtualized: only rows in view exist, so each is found with the search box).
  started = performance.now();
  await page.getByText(`${FLAGS} flags`, { exact: true }).waitFor({ timeout: LIST_CATCH_UP_MS });
  const search = page.getByLabel("Search flags");
  const sample = Array.from({ length: Math.min(SAMPLE, FLAGS) }, (_, k) =>
    Math.floor((k * FLAGS) / Math.min(SAMPLE, FLAGS)),
  );
  sample.push(FLAGS - 1);
  for (const i of sample) {
    await search.fill(flagName(i));
    const row = page
      .getByRole("row")
      .filter({ has: page.getByRole("link", { name: flagName(i), exact: true }) });
    await expect
      .poll(() => row.locator("td").nth(4).getAttribute("title"), { timeout: LIST_CATCH_UP_MS })
      .toBe(`changed-${ROUNDS}-${i}`);
  }
  await search.fill("");
  await page.getByText(`${FLAGS} flags`, { exact: true }).waitFor({ timeout: LIST_CATCH_UP_MS });
  const finalShownSeconds = (performance.now() - started) / 1000;

  await sleep(3 * LIVE_REFRESH_MS);
  const settledHeap = await pageHeapMib(cdp);
  const settled = await servers();
  await context.close();

  const mb = (value: number) => value.toFixed(1);
  const rss = (m: { vmRssMb: number; rssAnonMb: number }) => `${mb(m.vmRssMb)} (anon ${mb(m.rssAnonMb)})`;
  const heap = (m: { heapMb: number }) => mb(m.heapMb);
  const statusText = [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${n} × ${status}`)
    .join(", ");
  writeReport(
    "dashboard-load",
    [
      `${FLAGS} flags created, then each one's value changed ${ROUNDS} times, through \`svc api\` (${CONCURRENCY} at a time) while an editor's flag list of their namespace is open in headless Chromium behind \`svc dashboard\` (the list refreshes every ${LIVE_REFRESH_MS / 1000} s).`,
      "",
      "| | figure |",
      "| --- | --- |",
      `| API answers | ${statusText} |`,
      `| page errors, console errors, failed or non-2xx requests of the page (a 304 to a poll is none) | ${problems.length} |`,
      `| ${FLAGS} creations took | ${createSeconds.toFixed(1)} s (list showed all ${createdShownSeconds.toFixed(1)} s later) |`,
      `| ${ROUNDS} × ${FLAGS} value changes took | ${changeSeconds.toFixed(1)} s |`,
      `| list showing the final count and ${sample.length} sampled final values | ${finalShownSeconds.toFixed(1)} s after the last change |`,
      "",
      "| memory (MiB) | login page (floor) | list, empty | list, flags idle (floor) | after the changes | after a settle | settle ÷ idle |",
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
      `| page JS heap after GC | ${mb(loginHeap)} | ${mb(emptyHeap)} | ${mb(idleHeap)} | ${mb(afterHeap)} | ${mb(settledHeap)} | ${(settledHeap / idleHeap).toFixed(2)} |`,
      `| \`svc dashboard\` JS heap after GC | — | ${heap(atStart.dashboard)} | ${heap(before.dashboard)} | ${heap(after.dashboard)} | ${heap(settled.dashboard)} | ${(settled.dashboard.heapMb / before.dashboard.heapMb).toFixed(2)} |`,
      `| \`svc api\` JS heap after GC | — | ${heap(atStart.api)} | ${heap(before.api)} | ${heap(after.api)} | ${heap(settled.api)} | ${(settled.api.heapMb / before.api.heapMb).toFixed(2)} |`,
      `| \`svc dashboard\` RSS | — | ${rss(atStart.dashboard)} | ${rss(before.dashboard)} | ${rss(after.dashboard)} | ${rss(settled.dashboard)} | ${(settled.dashboard.vmRssMb / before.dashboard.vmRssMb).toFixed(2)} |`,
      `| \`svc api\` RSS | — | ${rss(atStart.api)} | ${rss(before.api)} | ${rss(after.api)} | ${rss(settled.api)} | ${(settled.api.vmRssMb / before.api.vmRssMb).toFixed(2)} |`,
      "",
      `Bounds: the page's heap after a settle ≤ its idle heap with the same flags + ${PAGE_HEAP_SLACK_MIB} MiB; each server's JS heap after a settle ≤ its heap with the same flags idle + ${SERVER_HEAP_SLACK_MIB} MiB, its RSS ≤ idle + ${SERVER_RSS_SLACK_MIB} MiB. Heaps are read after a full GC (the servers' through their inspectors), RSS just before it.`,
    ].join("\n"),
  );

  expect(statuses.get(201)).toBe(FLAGS);
  expect(statuses.get(200)).toBe(ROUNDS * FLAGS);
  expect(problems).toEqual([]);
  expect(settledHeap).toBeLessThanOrEqual(idleHeap + PAGE_HEAP_SLACK_MIB);
  expect(settled.dashboard.heapMb).toBeLessThanOrEqual(before.dashboard.heapMb + SERVER_HEAP_SLACK_MIB);
  expect(settled.api.heapMb).toBeLessThanOrEqual(before.api.heapMb + SERVER_HEAP_SLACK_MIB);
  expect(settled.dashboard.vmRssMb).toBeLessThanOrEqual(before.dashboard.vmRssMb + SERVER_RSS_SLACK_MIB);
  expect(settled.api.vmRssMb).toBeLessThanOrEqual(before.api.vmRssMb + SERVER_RSS_SLACK_MIB);
});
