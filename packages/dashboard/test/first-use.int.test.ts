// What a new user met on first use (issue 20, item 5), in a real Chromium against the real
// dashboard server, API and control plane: the app is the production build, compressed, and asks
// each API GET once; a flag's history holds its own events however many others are newer; a
// viewer opening an edit URL is told they cannot edit and nothing is audited; a disabled flag
// reads Disabled; a toggle that restarts workloads asks first and keeps the focus; dialogs log no
// CSP violation.
import { AppsV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { API_GROUP, API_VERSION, FEATURE_FLAG, type Role } from "@svc/core";
import type { Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDashboardHarness, type DashboardHarness } from "./support/harness.ts";

/** The initial JS budget over the wire (docs/dashboard.md). */
const INITIAL_JS_BUDGET_BYTES = 300 * 1024;

let h: DashboardHarness;

beforeAll(async () => {
  h = await startDashboardHarness("dash-first");
  // A Deployment that `restarts` (an environment variable flag) targets.
  const labels = { app: "shop" };
  await h.kubeConfig.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace: h.namespace,
    body: {
      metadata: { name: "web", labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: "web", image: "nginx:1.27" }] } },
      },
    },
  });
  await createFlag("restarts", { app: "shop" });
  await createFlag("quiet", { app: "nothing" });
});

afterAll(async () => {
  await h.close();
});

async function createFlag(name: string, matchLabels: Record<string, string>): Promise<void> {
  const response = await h.api("editor").fetch("/api/v1/flags", {
    method: "POST",
    body: JSON.stringify({
      name,
      namespace: h.namespace,
      clusterId: h.clusterId,
      type: "boolean",
      defaultValue: "true",
      delivery: { envVar: { selector: { matchLabels } } },
    }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
}

async function toggle(name: string, enabled: boolean): Promise<void> {
  const path = `/api/v1/flags/${h.namespace}/${name}/toggle?clusterId=${h.clusterId}`;
  const response = await h.api("editor").fetch(path, { method: "POST", body: JSON.stringify({ enabled }) });
  expect(response.status, await response.clone().text()).toBe(200);
}

interface AuditRow {
  id: number;
  actor: string;
  outcome: string;
  action: string;
  resource: string;
}

async function newestAuditId(): Promise<number> {
  const events = (await (await h.api("admin").fetch("/api/v1/audit?limit=1")).json()) as AuditRow[];
  return events[0]?.id ?? 0;
}

/** A signed-in page that records console errors (a CSP violation is one) and uncaught errors. */
async function signedIn(role: Role): Promise<{ page: Page; errors: string[] }> {
  const page = await h.newPage();
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  await h.login(page, role);
  return { page, errors };
}

const listUrl = () => `${h.url}/flags?namespace=${h.namespace}&cluster=${h.clusterId}`;
const rowOf = (page: Page, name: string) =>
  page.getByRole("row").filter({ has: page.getByRole("link", { name, exact: true }) });
const focusedLabel = (page: Page) => page.evaluate(`document.activeElement?.getAttribute("aria-label")`);

describe("the app as served", () => {
  it("is the compressed production build, within budget, asking each API GET once", async () => {
    const page = await h.newPage();
    const requests: Request[] = [];
    const aborted: string[] = [];
    page.on("request", (request) => requests.push(request));
    page.on("requestfailed", (request) => aborted.push(`${request.method()} ${request.url()}`));
    // The first load (the login page) fetches the app's JS; the list's own load comes after.
    await h.login(page, "editor");
    const scripts = requests.filter((request) => request.resourceType() === "script");
    expect(scripts.length).toBeGreaterThan(0);
    let wireBytes = 0;
    for (const script of scripts) {
      const response = await script.response();
      expect(response?.status()).toBe(200);
      expect(await response?.headerValue("content-encoding")).toMatch(/^(br|gzip)$/);
      expect(await response?.headerValue("vary")).toMatch(/accept-encoding/i);
      const text = (await response?.text()) ?? "";
      expect(text).not.toContain("jsxDEV");
      expect(text).not.toContain("sourceMappingURL"); // no source maps published
      wireBytes += (await script.sizes()).responseBodySize;
    }
    console.log(`initial JS over the wire: ${wireBytes} bytes in ${scripts.length} files`);
    expect(wireBytes).toBeLessThanOrEqual(INITIAL_JS_BUDGET_BYTES);

    // React's development build (StrictMode) sent each GET twice at once and aborted the first.
    // A live refresh asks again only after the answer, so a GET sent while the same one is in
    // flight is a doubled request, whatever the timing.
    const inFlight = new Set<string>();
    const doubled: string[] = [];
    const apiGet = (request: Request) =>
      request.method() === "GET" && new URL(request.url()).pathname.startsWith("/api/")
        ? request.url()
        : undefined;
    page.on("request", (request) => {
      const url = apiGet(request);
      if (url === undefined) return;
      if (inFlight.has(url)) doubled.push(url);
      inFlight.add(url);
    });
    const landed = (request: Request) => {
      const url = apiGet(request);
      if (url !== undefined) inFlight.delete(url);
    };
    page.on("requestfinished", landed);
    page.on("requestfailed", landed);
    requests.length = 0;
    await page.goto(listUrl());
    await rowOf(page, "restarts").waitFor();

    expect(aborted).toEqual([]);
    expect(requests.filter((request) => apiGet(request) !== undefined).length).toBeGreaterThan(0);
    expect(doubled).toEqual([]);

    // The API's answers come compressed through the dashboard's proxy too.
    const list = requests.find((request) => new URL(request.url()).pathname === "/api/v1/flags");
    expect(await (await list?.response())?.headerValue("content-encoding")).toMatch(/^(br|gzip)$/);
    await page.close();
  });

  it("answers a missing asset 404 with a JSON error, not the app", async () => {
    const response = await fetch(`${h.url}/assets/index-Missing1.js`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: "no route GET /assets/index-Missing1.js" });
  });
});

describe("a flag's history", () => {
  it("shows the flag's own events with 1,500 newer audit events of other flags", async () => {
    await createFlag("historic", { app: "historic" });
    for (const enabled of [false, true, false]) await toggle("historic", enabled);
    // 1,500 flag events of another flag, the quickest way: a viewer's refused updates.
    const refused = `/api/v1/flags/${h.namespace}/restarts?clusterId=${h.clusterId}`;
    const viewer = h.api("viewer");
    await viewer.fetch("/api/v1/auth/me"); // signs in once, before the concurrent calls
    for (let batch = 0; batch < 30; batch++) {
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          const response = await viewer.fetch(refused, { method: "PUT", body: "{}" });
          expect(response.status).toBe(403);
        }),
      );
    }
    const { page, errors } = await signedIn("viewer");
    await page.goto(`${h.url}/flags/${h.clusterId}/${h.namespace}/historic`);
    const history = page.getByRole("table", { name: "Audit events" });
    await history.waitFor();
    await expect.poll(() => history.getByRole("cell", { name: "toggle", exact: true }).count()).toBe(3);
    expect(await history.getByRole("cell", { name: "create", exact: true }).count()).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe("a viewer opening an editor's page", () => {
  it.each([
    ["the edit URL", () => `/flags/${h.clusterId}/${h.namespace}/quiet/edit`, "edit flags"],
    ["/flags/new", () => `/flags/new?cluster=${h.clusterId}&namespace=${h.namespace}`, "create flags"],
  ])("%s: is told they cannot, with no form, and nothing is audited", async (_what, path, action) => {
    const before = await newestAuditId();
    const { page, errors } = await signedIn("viewer");
    await page.goto(`${h.url}${path()}`);
    await page.getByText(`Your role (viewer) cannot ${action}`).waitFor();
    expect(await page.getByRole("button", { name: /Save changes|Create flag/ }).count()).toBe(0);
    expect(await page.getByText(/may not call/).count()).toBe(0);
    // The page settles (the session check runs), then the audit log has nothing of it.
    await page.getByRole("link", { name: /Back to the flag/ }).waitFor();
    await page.reload();
    await page.getByText(`Your role (viewer) cannot ${action}`).waitFor();
    const events = (await (
      await h.api("admin").fetch(`/api/v1/audit?actor=viewer&limit=1000`)
    ).json()) as AuditRow[];
    expect(events.filter((event) => event.id > before && event.resource !== "session")).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe("a disabled flag", () => {
  it("reads Disabled, not Delivered, in the list and on its page", async () => {
    await createFlag("switched-off", { app: "shop" });
    await toggle("switched-off", false);
    // The status the operator writes once the value is withdrawn from every target.
    const custom = h.kubeConfig.makeApiClient(CustomObjectsApi);
    const address = {
      group: API_GROUP,
      version: API_VERSION,
      plural: FEATURE_FLAG.plural,
      namespace: h.namespace,
      name: "switched-off",
    };
    const stored = (await custom.getNamespacedCustomObject(address)) as { metadata: { generation: number } };
    await custom.patchNamespacedCustomObjectStatus(
      {
        ...address,
        body: {
          status: {
            observedGeneration: stored.metadata.generation,
            phase: "Delivered",
            delivery: "envVar",
            message: "every target workload carries the flag as it should",
            targets: [{ kind: "Deployment", name: "web", delivered: true, outcome: "disabled" }],
          },
        },
      },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    const { page } = await signedIn("viewer");
    await page.goto(listUrl());
    const row = rowOf(page, "switched-off");
    await row.getByText("Disabled", { exact: true }).waitFor();
    expect(await row.getByText("Delivered", { exact: true }).count()).toBe(0);
    await page.goto(`${h.url}/flags/${h.clusterId}/${h.namespace}/switched-off`);
    const status = page.getByRole("region", { name: "Delivery status" });
    await status.getByText("Disabled", { exact: true }).waitFor();
    expect(await status.getByText("Delivered", { exact: true }).count()).toBe(0);
    await page.getByText("not delivered while the flag is off").waitFor();
    await page.close();
  });
});

describe("toggling from the list", () => {
  it("asks before a toggle that restarts workloads, naming them, and keeps the focus on the switch", async () => {
    const { page, errors } = await signedIn("editor");
    await page.goto(listUrl());
    const toggleSwitch = rowOf(page, "restarts").getByRole("switch", { name: "Enabled restarts" });
    await toggleSwitch.click();
    const dialog = page.getByRole("alertdialog", { name: "Turn restarts off?" });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(`1 workload will restart: Deployment ${h.namespace}/web`);
    await h.screenshot(page, "flag-toggle-confirm");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(await focusedLabel(page)).toBe("Enabled restarts");
    expect(await toggleSwitch.getAttribute("aria-checked")).toBe("true");
    expect((await h.featureFlag("restarts")).spec.enabled).not.toBe(false);

    await toggleSwitch.click();
    await dialog.getByRole("button", { name: "Turn off and restart" }).click();
    await expect.poll(async () => (await h.featureFlag("restarts")).spec.enabled).toBe(false);
    await dialog.waitFor({ state: "detached" });
    await expect.poll(() => toggleSwitch.getAttribute("aria-checked")).toBe("false");
    expect(await focusedLabel(page)).toBe("Enabled restarts");
    // Opening and closing dialogs logged no CSP violation (Radix's scroll lock is a <style>).
    expect(errors).toEqual([]);
    await page.close();
  });

  it("toggles one that restarts nothing at once, keeping the focus", async () => {
    const { page, errors } = await signedIn("editor");
    await page.goto(listUrl());
    const toggleSwitch = rowOf(page, "quiet").getByRole("switch", { name: "Enabled quiet" });
    await toggleSwitch.click();
    await expect.poll(async () => (await h.featureFlag("quiet")).spec.enabled).toBe(false);
    await expect.poll(() => toggleSwitch.getAttribute("aria-checked")).toBe("false");
    expect(await page.getByRole("alertdialog").count()).toBe(0);
    expect(await focusedLabel(page)).toBe("Enabled quiet");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("opens the delete dialog without a CSP violation", async () => {
    const { page, errors } = await signedIn("admin");
    await page.goto(listUrl());
    await rowOf(page, "quiet").getByRole("button", { name: "Delete quiet" }).click();
    const dialog = page.getByRole("alertdialog", { name: "Delete flag quiet?" });
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(errors).toEqual([]);
    await page.close();
  });
});
