// Lists larger than one page, in a real Chromium against the real API and control plane: the
// dashboard asks for a page (`limit`) and the next (`continue`) as the flag table scrolls to its
// end or the workloads' "Show more" is pressed, and searches flags through the server, so a
// fleet's lists are never downloaded whole.
import { AppsV1Api } from "@kubernetes/client-node";
import { waitFor } from "@svc/kube";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDashboardHarness, type DashboardHarness } from "./support/harness.ts";

/** One page and a part: the dashboard asks for pages of 100 (LIST_PAGE_SIZE). */
const FLAGS = 140;
const nameOf = (i: number) => `paged-${String(i).padStart(4, "0")}`;
/** Workloads: one page and a few. */
const WORKLOADS = 105;
const workloadOf = (i: number) => `web-${String(i).padStart(4, "0")}`;

let h: DashboardHarness;

beforeAll(async () => {
  h = await startDashboardHarness("dash-paging");
  const numbers = Array.from({ length: FLAGS }, (_, i) => i);
  for (let start = 0; start < FLAGS; start += 10) {
    await Promise.all(
      numbers.slice(start, start + 10).map(async (i) => {
        const response = await h.api("editor").fetch("/api/v1/flags", {
          method: "POST",
          body: JSON.stringify({
            name: nameOf(i),
            namespace: h.namespace,
            clusterId: h.clusterId,
            type: "boolean",
            defaultValue: "true",
            delivery: { envVar: { selector: { matchLabels: { app: "paged" } } } },
          }),
        });
        expect(response.status, await response.clone().text()).toBe(201);
      }),
    );
  }
  const apps = h.kubeConfig.makeApiClient(AppsV1Api);
  for (let start = 0; start < WORKLOADS; start += 15) {
    await Promise.all(
      Array.from({ length: Math.min(15, WORKLOADS - start) }, (_, k) => {
        const labels = { app: workloadOf(start + k) };
        return apps.createNamespacedDeployment({
          namespace: h.namespace,
          body: {
            metadata: { name: workloadOf(start + k), labels },
            // No replicas: the list needs the objects, not pods.
            spec: {
              replicas: 0,
              selector: { matchLabels: labels },
              template: {
                metadata: { labels },
                spec: { containers: [{ name: "web", image: "example.com/web:1" }] },
              },
            },
          },
        });
      }),
    );
  }
  // The API answers from its informer caches: wait until they hold every flag and workload.
  await waitFor(
    async () => {
      const response = await h
        .api("viewer")
        .fetch(`/api/v1/flags?namespace=${h.namespace}&clusterId=${h.clusterId}&limit=1`);
      const page = (await response.json()) as { metadata: { remainingItemCount: number } };
      return page.metadata.remainingItemCount + 1;
    },
    (listed) => listed === FLAGS,
    { what: `the API listing ${FLAGS} flags`, timeoutMs: 30_000, intervalMs: 200 },
  );
  await waitFor(
    async () => {
      const response = await h
        .api("viewer")
        .fetch(`/api/v1/clusters/${h.clusterId}/workloads?namespace=${h.namespace}&limit=1`);
      const page = (await response.json()) as { metadata: { remainingItemCount: number } };
      return page.metadata.remainingItemCount + 1;
    },
    (listed) => listed === WORKLOADS,
    { what: `the API listing ${WORKLOADS} workloads`, timeoutMs: 30_000, intervalMs: 200 },
  );
}, 180_000);

afterAll(async () => {
  await h.close();
});

/** A page of the file's namespace, and the query of every request to `apiPath` it sends. */
async function open(
  path: string,
  apiPath: string,
  first: string,
): Promise<{ page: Page; requests: URLSearchParams[] }> {
  const page = await h.newPage();
  await h.login(page, "viewer");
  const requests: URLSearchParams[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.pathname === apiPath) requests.push(url.searchParams);
  });
  await page.goto(`${h.url}${path}`);
  await link(page, first).waitFor();
  return { page, requests };
}

const openList = () =>
  open(`/flags?namespace=${h.namespace}&cluster=${h.clusterId}`, "/api/v1/flags", nameOf(0));

const link = (page: Page, name: string) => page.getByRole("link", { name, exact: true });

describe("the flag list", () => {
  it("shows the first page, counts the whole list, and loads the next page as the table scrolls to its end", async () => {
    const { page, requests } = await openList();
    await page.getByText(`${FLAGS} flags`, { exact: true }).waitFor();
    expect(await link(page, nameOf(FLAGS - 1)).count()).toBe(0);
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.every((query) => query.get("limit") === "100" && !query.has("continue"))).toBe(true);

    // Scrolled as a user scrolls (the wheel over the table), until the last flag is a row.
    await page.locator(".flag-table").hover();
    await expect
      .poll(
        async () => {
          await page.mouse.wheel(0, 4000);
          return link(page, nameOf(FLAGS - 1)).count();
        },
        { timeout: 20_000 },
      )
      .toBe(1);
    expect(requests.some((query) => query.get("limit") === "100" && query.has("continue"))).toBe(true);
    expect(requests.every((query) => query.get("limit") === "100")).toBe(true);
    await page.close();
  });

  it("searches through the server for flags beyond the first page, keeping every keystroke", async () => {
    const { page, requests } = await openList();
    const search = page.getByRole("searchbox", { name: "Search flags" });
    await search.pressSequentially("Paged-013", { delay: 40 });
    expect(await search.inputValue()).toBe("Paged-013");
    await link(page, nameOf(135)).waitFor();
    await page.getByText(`10 of ${FLAGS} flags`, { exact: true }).waitFor();
    expect(await link(page, nameOf(0)).count()).toBe(0);
    expect(
      requests.some((query) => query.get("namePrefix") === "paged-013" && query.get("limit") === "100"),
    ).toBe(true);
    await page.close();
  });

  it("never lets a late answer to an older search replace the newer search's rows", async () => {
    const { page, requests } = await openList();
    const older = (url: URL) =>
      url.pathname === "/api/v1/flags" && url.searchParams.get("namePrefix") === "paged-012";
    // The older search's answer is held back until the newer one is shown.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let olderSettled = false;
    await page.route(older, async (route) => {
      await held;
      await route.continue().catch(() => undefined);
    });
    const settle = (request: { url: () => string }) => {
      if (older(new URL(request.url()))) olderSettled = true;
    };
    page.on("requestfinished", settle);
    page.on("requestfailed", settle);
    // Nothing is aborted either: Chromium counts an aborted request as failed.
    const failed: string[] = [];
    page.on("requestfailed", (request) => failed.push(request.url()));

    const search = page.getByRole("searchbox", { name: "Search flags" });
    await search.fill("paged-012");
    await expect.poll(() => requests.some((query) => query.get("namePrefix") === "paged-012")).toBe(true);
    await search.fill("paged-013");
    await link(page, nameOf(135)).waitFor();
    release();
    await expect.poll(() => olderSettled).toBe(true);
    // Two frames later, whatever the older answer caused is rendered: still the newer rows.
    await page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))");
    expect(await link(page, nameOf(135)).count()).toBe(1);
    expect(await link(page, nameOf(125)).count()).toBe(0);
    expect(await search.inputValue()).toBe("paged-013");
    expect(failed).toEqual([]);
    await page.close();
  });
});

describe("a cluster's workloads", () => {
  it("shows the first page and the count of all, and the next page on Show more", async () => {
    const { page, requests } = await open(
      `/clusters/${h.clusterId}?namespace=${h.namespace}`,
      `/api/v1/clusters/${h.clusterId}/workloads`,
      `${h.namespace}/${workloadOf(0)}`,
    );
    await page.getByText(`100 of ${WORKLOADS} workloads shown`, { exact: true }).waitFor();
    const last = link(page, `${h.namespace}/${workloadOf(WORKLOADS - 1)}`);
    expect(await last.count()).toBe(0);
    expect(requests.every((query) => query.get("limit") === "100" && !query.has("continue"))).toBe(true);
    await page.getByRole("button", { name: "Show more workloads" }).click();
    await last.waitFor();
    await page.getByText(`${WORKLOADS} workloads`, { exact: true }).waitFor();
    expect(await page.getByRole("button", { name: "Show more workloads" }).count()).toBe(0);
    expect(requests.some((query) => query.get("limit") === "100" && query.has("continue"))).toBe(true);
    await page.close();
  });
});
