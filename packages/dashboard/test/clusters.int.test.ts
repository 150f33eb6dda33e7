// The clusters section in a real Chromium against the real API and control plane: the local
// cluster's live status, registering and removing a cluster (admins only), and a cluster's
// workloads with their env shown as the API returns it (references and redactions, no secrets).
import { AppsV1Api } from "@kubernetes/client-node";
import type { Role } from "@svc/core";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDashboardHarness, type DashboardHarness } from "./support/harness.ts";

let h: DashboardHarness;

beforeAll(async () => {
  h = await startDashboardHarness("dash-clusters");
  const labels = { app: "api" };
  await h.kubeConfig.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace: h.namespace,
    body: {
      metadata: { name: "api", labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            containers: [
              {
                name: "api",
                image: "example.com/shop/api:2.1",
                env: [
                  { name: "LOG_LEVEL", value: "debug" },
                  { name: "DB_PASSWORD", value: "hunter2" },
                  { name: "API_TOKEN", valueFrom: { secretKeyRef: { name: "api-secrets", key: "token" } } },
                ],
              },
            ],
          },
        },
      },
    },
  });
});

afterAll(async () => {
  await h.close();
});

async function clusters(role: Role, options: Parameters<DashboardHarness["newPage"]>[0] = {}): Promise<Page> {
  const page = await h.newPage(options);
  await h.login(page, role);
  await page.goto(`${h.url}/clusters`);
  await page.getByRole("table", { name: "Clusters" }).waitFor();
  return page;
}

const rowOf = (page: Page, text: string) => page.getByRole("row").filter({ hasText: text });

async function envText(page: Page): Promise<string> {
  const env = page.getByRole("table", { name: "Environment of api" });
  await env.waitFor();
  return (await env.textContent()) ?? "";
}

describe("the cluster list", () => {
  it("shows the local cluster Connected, with its Kubernetes version", async () => {
    const page = await clusters("viewer");
    const local = rowOf(page, "local ·");
    await expect.poll(() => local.getByText("Connected", { exact: true }).count()).toBe(1);
    expect(await local.textContent()).toMatch(/v1\.\d+/);
    await page.close();
  });

  it.each(["editor", "viewer"] as const)("offers %s no register or remove", async (role) => {
    const page = await clusters(role);
    expect(await page.getByRole("button", { name: "Register cluster" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: /^Remove/ }).count()).toBe(0);
    await page.close();
  });

  it("lets an admin register a cluster, see why it cannot be reached, and remove it", async () => {
    const page = await clusters("admin");
    expect(
      await rowOf(page, "local ·")
        .getByRole("button", { name: /^Remove/ })
        .count(),
    ).toBe(0);
    await page.getByRole("button", { name: "Register cluster" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Cluster id").fill("edge-lab");
    await dialog.getByLabel("Display name").fill("Edge lab");
    await dialog.getByLabel("API server URL").fill("https://127.0.0.1:9");
    await dialog.getByLabel("Authentication").selectOption("serviceaccount");
    await dialog.getByLabel("Token", { exact: true }).fill("not-a-real-token");
    // A token goes only to a server verified against the CA given with it (issue 37).
    await dialog.getByLabel("CA certificate (base64)").fill(h.kubeConfig.getCurrentCluster()?.caData ?? "");
    await dialog.getByLabel("Labels").fill("site=lab");
    await dialog.getByRole("button", { name: "Register" }).click();
    await dialog.waitFor({ state: "detached" });

    const row = rowOf(page, "edge-lab");
    await row.waitFor();
    // Nothing listens on port 9: the cluster is not Connected, and the reason is on the row.
    await expect
      .poll(async () => (await row.locator(".badge").first().textContent()) ?? "", { timeout: 20_000 })
      .toMatch(/Disconnected|Error/);
    await expect.poll(async () => (await row.locator(".cluster-message").textContent()) ?? "").not.toBe("");
    await h.screenshot(page, "clusters-list-light");

    await row.getByRole("button", { name: "Remove edge-lab" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Remove cluster" }).click();
    await row.waitFor({ state: "detached" });
    // Eventually: once, under load, the list still showed the cluster just after the row went
    // (the DELETE waits for the registry to drop it); the cause is not found yet.
    await expect
      .poll(
        async () =>
          ((await (await h.api("admin").fetch("/api/v1/clusters")).json()) as { id: string }[]).map(
            (c) => c.id,
          ),
        { timeout: 10_000 },
      )
      .not.toContain("edge-lab");
    await page.close();
  });

  it("shows the API's refusals in the dialog, next to the field they name", async () => {
    const page = await clusters("admin");
    await page.getByRole("button", { name: "Register cluster" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Cluster id").fill("local");
    await dialog.getByLabel("Display name").fill("Again");
    await dialog.getByLabel("API server URL").fill("https://127.0.0.1:9");
    const kubeconfig = dialog.getByLabel("Kubeconfig");
    await kubeconfig.fill("apiVersion: v1\nkind: Config\nclusters: []\n");
    await dialog.getByRole("button", { name: "Register" }).click();
    // The API reads the kubeconfig first: its complaint lands under that field.
    await expect.poll(() => kubeconfig.getAttribute("aria-invalid")).toBe("true");
    await kubeconfig.fill(
      [
        "apiVersion: v1",
        "kind: Config",
        "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:9', certificate-authority-data: QQ==}}]",
        "users: [{name: u, user: {token: t}}]",
        "contexts: [{name: x, context: {cluster: c, user: u}}]",
        "current-context: x",
      ].join("\n"),
    );
    await dialog.getByRole("button", { name: "Register" }).click();
    // Then the id: taken by the local cluster (409), said in the dialog, which stays open.
    await expect
      .poll(async () => (await dialog.getByRole("alert").allTextContents()).join(" "))
      .toMatch(/local/);
    await page.close();
  });
});

describe("a cluster's workloads", () => {
  it("lists the namespace's Deployment with its image, and shows its env without secrets", async () => {
    const page = await h.newPage();
    await h.login(page, "viewer");
    await page.goto(`${h.url}/clusters/${h.clusterId}?namespace=${h.namespace}`);
    const workloads = page.getByRole("table", { name: "Workloads" });
    await workloads.getByRole("link", { name: `${h.namespace}/api` }).waitFor();
    expect(await workloads.textContent()).toContain("example.com/shop/api:2.1");
    await h.screenshot(page, "cluster-page-light");

    await workloads.getByRole("link", { name: `${h.namespace}/api` }).click();
    const text = await envText(page);
    // A viewer sees the names of literal variables, not their values.
    expect(text).toContain("LOG_LEVEL");
    expect(text).not.toContain("debug");
    expect(text).toContain("<redacted>");
    expect(text).not.toContain("hunter2");
    expect(text).toContain("from Secret api-secrets, key token");
    await page.close();
  });

  it("shows an editor the literal values, secret-looking ones still redacted", async () => {
    const page = await h.newPage();
    await h.login(page, "editor");
    await page.goto(`${h.url}/clusters/${h.clusterId}/workloads/${h.namespace}/api`);
    const text = await envText(page);
    expect(text).toContain("debug");
    expect(text).not.toContain("hunter2");
    await page.close();
  });

  it("is usable at 360 px and in the dark theme (screenshots)", async () => {
    const dark = await clusters("admin", { theme: "dark" });
    await h.screenshot(dark, "clusters-list-dark");
    await dark.close();
    const narrow = await clusters("viewer", { width: 360, height: 740 });
    const overflow = await narrow.evaluate("document.documentElement.scrollWidth - window.innerWidth");
    expect(overflow).toBeLessThanOrEqual(0);
    await h.screenshot(narrow, "clusters-list-360px");
    await narrow.close();
  });
});
