// Creating and editing a flag in a real Chromium against the real API and control plane: the
// preview names the workloads that would restart before saving, the FeatureFlag in the cluster
// is what the form said, bad input is caught as typed or shown next to its field, and the
// detail page shows definition, status, history and YAML to the roles allowed to see them.
import { AppsV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { API_GROUP, API_VERSION, FEATURE_FLAG } from "@svc/core";
import type { Role } from "@svc/core";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDashboardHarness, type DashboardHarness } from "./support/harness.ts";

let h: DashboardHarness;

beforeAll(async () => {
  h = await startDashboardHarness("dash-edit");
  const apps = h.kubeConfig.makeApiClient(AppsV1Api);
  for (const name of ["web", "checkout"]) {
    const labels = { app: "shop", tier: name };
    await apps.createNamespacedDeployment({
      namespace: h.namespace,
      body: {
        metadata: { name, labels },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name, image: "nginx:1.27" }] } },
        },
      },
    });
  }
});

afterAll(async () => {
  await h.close();
});

const exists = (name: string) =>
  h.featureFlag(name).then(
    () => true,
    () => false,
  );

async function newFlagForm(role: Role = "editor", options: Parameters<DashboardHarness["newPage"]>[0] = {}) {
  const page = await h.newPage(options);
  await h.login(page, role);
  await page.goto(`${h.url}/flags/new?cluster=${h.clusterId}&namespace=${h.namespace}`);
  await page.getByLabel("Name", { exact: true }).waitFor();
  // The namespace select fills once the cluster's namespaces arrive.
  await expect.poll(() => page.getByLabel("Namespace", { exact: true }).inputValue()).toBe(h.namespace);
  return page;
}

async function fillSelector(page: Page, key: string, value: string): Promise<void> {
  await page.getByLabel("Label key 1").fill(key);
  await page.getByLabel("Label value 1").fill(value);
}

describe("creating a flag", () => {
  it("previews the workloads that will restart, then creates the FeatureFlag the form describes", async () => {
    const page = await newFlagForm();
    await page.getByLabel("Name", { exact: true }).fill("new-checkout");
    await page.getByLabel("Description", { exact: true }).fill("The new checkout flow");
    await page.getByRole("switch", { name: "Value", exact: true }).click();
    await fillSelector(page, "app", "shop");
    const warning = page.getByRole("alert").filter({ hasText: "will restart" });
    await warning.waitFor();
    expect(await warning.textContent()).toBe(
      `2 workloads will restart: Deployment ${h.namespace}/checkout, Deployment ${h.namespace}/web`,
    );
    await h.screenshot(page, "flag-form-light");
    await page.emulateMedia({ colorScheme: "dark" });
    await page.getByRole("button", { name: "Switch to light theme" }).waitFor();
    await h.screenshot(page, "flag-form-dark");
    expect(await exists("new-checkout")).toBe(false); // the preview wrote nothing

    await page.getByRole("button", { name: "Create flag" }).click();
    await page.getByRole("heading", { name: "new-checkout" }).waitFor();
    expect((await h.featureFlag("new-checkout")).spec).toMatchObject({
      type: "boolean",
      defaultValue: "true",
      description: "The new checkout flow",
      delivery: { envVar: { selector: { matchLabels: { app: "shop" } } } },
    });
    await page.close();
  });

  it("narrows the preview of a ConfigMap flag to the workloads its selector matches", async () => {
    const page = await newFlagForm();
    await page.getByLabel("Name", { exact: true }).fill("banner-text");
    await page.getByRole("radio", { name: /ConfigMap key/ }).click();
    await page.getByLabel("ConfigMap name").fill("shop-flags");
    await page.getByLabel("Key", { exact: true }).fill("banner");
    await fillSelector(page, "tier", "web");
    // A ConfigMap flag mounts its ConfigMap once (a first restart); the preview says so, per workload.
    await page.getByRole("cell", { name: `Deployment ${h.namespace}/web` }).waitFor();
    expect(await page.getByRole("cell", { name: `Deployment ${h.namespace}/checkout` }).count()).toBe(0);
    await page.close();
  });

  it("rejects invalid JSON as it is typed, and sends nothing", async () => {
    const page = await newFlagForm();
    await page.getByLabel("Name", { exact: true }).fill("bad-json");
    await page.getByLabel("Type", { exact: true }).selectOption("json");
    await page.getByLabel("Value", { exact: true }).fill('{"limit": ');
    await fillSelector(page, "app", "shop");
    await page.getByText(/Not valid JSON/).waitFor();
    await page.getByRole("button", { name: "Create flag" }).click();
    await page.getByText("Some fields need attention").waitFor();
    expect(await page.getByLabel("Value", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    expect(await exists("bad-json")).toBe(false);
    await page.close();
  });

  it("shows the API's refusal next to the field it names", async () => {
    const page = await newFlagForm();
    await page.getByLabel("Name", { exact: true }).fill("long-description");
    await fillSelector(page, "app", "shop");
    await page.getByLabel("Description", { exact: true }).fill("x".repeat(1100));
    await page.getByRole("button", { name: "Create flag" }).click();
    const description = page.getByLabel("Description", { exact: true });
    await expect.poll(() => description.getAttribute("aria-invalid")).toBe("true");
    const problemId = ((await description.getAttribute("aria-describedby")) ?? "").split(" ")[1] ?? "";
    expect(await page.locator(`[id="${problemId}"]`).textContent()).toMatch(/^description: /);
    expect(await exists("long-description")).toBe(false);
    await page.close();
  });
});

describe("editing and reading a flag", () => {
  beforeAll(async () => {
    const response = await h.api("editor").fetch("/api/v1/flags", {
      method: "POST",
      body: JSON.stringify({
        name: "rate-limit",
        namespace: h.namespace,
        clusterId: h.clusterId,
        type: "integer",
        defaultValue: "100",
        description: "Requests per second",
        delivery: { sidecar: { selector: { matchLabels: { tier: "checkout" } } } },
      }),
    });
    expect(response.status).toBe(201);
  });

  const detail = `/flags/local/{ns}/rate-limit`;

  it("edits the value: the FeatureFlag changes, and the history shows before and after", async () => {
    const page = await h.newPage();
    await h.login(page, "editor");
    await page.goto(`${h.url}${detail.replace("{ns}", h.namespace)}/edit`);
    const value = page.getByLabel("Value", { exact: true });
    await expect.poll(() => value.inputValue()).toBe("100");
    await value.fill("250");
    await page.getByText("No workload restarts when you save.").waitFor();
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("heading", { name: "rate-limit" }).waitFor();
    await expect.poll(async () => (await h.featureFlag("rate-limit")).spec.defaultValue).toBe("250");

    const history = page.getByRole("table", { name: "Audit events" });
    await history.getByRole("cell", { name: "update" }).waitFor();
    await history
      .getByRole("button", { name: /details/i })
      .first()
      .click();
    const changes = page.getByRole("table", { name: /Changes of event/ });
    expect(await changes.textContent()).toMatch(/defaultValue.*100.*250/);
    await page.close();
  });

  it("shows the definition, the designed not-delivered-yet state and the YAML; viewers get no edit or delete", async () => {
    for (const theme of ["light", "dark"] as const) {
      const page = await h.newPage({ theme });
      await h.login(page, theme === "light" ? "viewer" : "admin");
      await page.goto(`${h.url}${detail.replace("{ns}", h.namespace)}`);
      await page.getByRole("heading", { name: "rate-limit" }).waitFor();
      // No operator runs in this test: the page says so instead of showing an empty table.
      await page.getByText("Not delivered yet").waitFor();
      const yaml = page.getByRole("region", { name: "FeatureFlag YAML" }).locator("pre");
      await yaml.waitFor();
      expect(await yaml.textContent()).toContain("kind: FeatureFlag");
      expect(await yaml.textContent()).toContain("tier: checkout");
      const editLinks = await page.getByRole("link", { name: "Edit" }).count();
      const deleteButtons = await page.getByRole("button", { name: "Delete rate-limit" }).count();
      if (theme === "light") {
        expect([editLinks, deleteButtons]).toEqual([0, 0]);
        expect(await page.getByRole("switch").count()).toBe(0);
      } else {
        expect([editLinks, deleteButtons]).toEqual([1, 1]);
      }
      await h.screenshot(page, `flag-detail-${theme}`);
      await page.close();
    }
  });
});

describe("editing while others write the flag (issue 37 item 0)", () => {
  const flag = () => ({
    group: API_GROUP,
    version: API_VERSION,
    namespace: h.namespace,
    plural: FEATURE_FLAG.plural,
    name: "page-size",
  });

  beforeAll(async () => {
    const response = await h.api("editor").fetch("/api/v1/flags", {
      method: "POST",
      body: JSON.stringify({
        name: "page-size",
        namespace: h.namespace,
        clusterId: h.clusterId,
        type: "integer",
        defaultValue: "20",
        delivery: { sidecar: { selector: { matchLabels: { tier: "checkout" } } } },
      }),
    });
    expect(response.status).toBe(201);
  });

  /** The edit page of page-size as an editor, its form filled from the flag. */
  async function editing(): Promise<Page> {
    const page = await h.newPage();
    await h.login(page, "editor");
    await page.goto(`${h.url}/flags/local/${h.namespace}/page-size/edit`);
    await expect.poll(() => page.getByLabel("Value", { exact: true }).inputValue()).not.toBe("");
    return page;
  }

  it("saves although the operator wrote the flag's status while the form was open", async () => {
    const page = await editing();
    // What the operator does after every delivery: the status, through its subresource.
    await h.kubeConfig
      .makeApiClient(CustomObjectsApi)
      .patchNamespacedCustomObjectStatus(
        { ...flag(), body: { status: { message: "written while the form was open" } } },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
    await page.getByLabel("Value", { exact: true }).fill("30");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("heading", { name: "page-size" }).waitFor();
    await expect.poll(async () => (await h.featureFlag("page-size")).spec.defaultValue).toBe("30");
    await page.close();
  });

  it("refuses the save when someone else changed the definition meanwhile, naming the field and who", async () => {
    const page = await editing();
    await h.kubeConfig
      .makeApiClient(CustomObjectsApi)
      .patchNamespacedCustomObject(
        { ...flag(), fieldManager: "kubectl-edit", body: { spec: { description: "Theirs" } } },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
    await page.getByLabel("Value", { exact: true }).fill("40");
    await page.getByRole("button", { name: "Save changes" }).click();
    const alert = page.getByRole("alert").filter({ hasText: "Someone changed this flag" });
    await alert.waitFor();
    expect(await alert.textContent()).toContain("by kubectl-edit (description)");
    const stored = (await h.featureFlag("page-size")).spec;
    expect([stored.description, stored.defaultValue]).toEqual(["Theirs", "30"]);
    await page.close();
  });
});
