// Scoped roles (issue 37 item 3) in a real Chromium against the real API and control plane: an
// admin gives a user grants on the users page; that user, signed in, sees only the flags of its
// grants, and is offered toggle and edit only where a grant makes it an editor. A grant changed
// by the admin applies to the open page without signing in again.
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testNamespace } from "../../../test/support/kube.ts";
import { startDashboardHarness, type DashboardHarness } from "./support/harness.ts";

let h: DashboardHarness;
/** The user's grants: editor in `shop`, viewer in `reports`; nothing in `payments`. */
let shop = "";
let reports = "";
let payments = "";
const username = `sam-${randomBytes(3).toString("hex")}`;
const password = "sam-password-1";

const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 15_000 });

async function createFlag(namespace: string, name: string): Promise<void> {
  const response = await h.api("admin").fetch("/api/v1/flags", {
    method: "POST",
    body: JSON.stringify({
      name,
      namespace,
      clusterId: h.clusterId,
      type: "boolean",
      defaultValue: "true",
      description: "",
      delivery: { envVar: { selector: { matchLabels: { app: name } } } },
    }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
}

beforeAll(async () => {
  h = await startDashboardHarness("dash-scope");
  shop = h.namespace;
  reports = await testNamespace(h.kubeConfig, "dash-scope-rep");
  payments = await testNamespace(h.kubeConfig, "dash-scope-pay");
  await createFlag(shop, "shop-checkout");
  await createFlag(reports, "reports-daily");
  await createFlag(payments, "payments-v2");
});

afterAll(async () => {
  await h.close();
});

const rowOf = (page: Page, name: string) =>
  page.getByRole("row").filter({ has: page.getByRole("link", { name, exact: true }) });

/** Fills the grant fields of the dialog's `n`th grant (added first with "Add grant"). */
async function fillGrant(
  page: Page,
  n: number,
  grant: { role: string; clusters: string; namespaces: string },
) {
  const group = page.getByRole("dialog").getByRole("group", { name: `Grant ${n}` });
  await group.getByLabel("Grant role").selectOption(grant.role);
  await group.getByLabel("Clusters").fill(grant.clusters);
  await group.getByLabel("Namespaces").fill(grant.namespaces);
}

async function storedUser(): Promise<{ role: string; grants: unknown[] } | undefined> {
  const response = await h.api("admin").fetch("/api/v1/users");
  const users = (await response.json()) as { username: string; role: string; grants: unknown[] }[];
  return users.find((user) => user.username === username);
}

describe("scoped roles", () => {
  it("an admin creates a user with grants only; the user sees its scope and edits only where it may", async () => {
    const admin = await h.newPage();
    await h.login(admin, "admin");
    await admin.goto(`${h.url}/users`);
    await admin.getByRole("button", { name: "New user" }).click();
    const dialog = admin.getByRole("dialog", { name: "New user" });
    await dialog.getByLabel("Username").fill(username);
    await dialog.getByLabel("Password", { exact: true }).fill(password);
    await dialog.getByLabel("Confirm password").fill(password);
    await dialog.getByLabel("Role", { exact: true }).selectOption("none");
    // "none" alone cannot be saved: the form says why before any request.
    await dialog.getByText("needs at least one grant").waitFor();
    expect(await dialog.getByRole("button", { name: "Create user" }).isDisabled()).toBe(true);
    await dialog.getByRole("button", { name: "Add grant" }).click();
    // A bad namespace is named as typed, as the API would.
    await dialog.getByRole("group", { name: "Grant 1" }).getByLabel("Namespaces").fill("Shop_1");
    await dialog.getByText('"Shop_1" is not a namespace or pattern').waitFor();
    await fillGrant(admin, 1, { role: "editor", clusters: h.clusterId, namespaces: shop });
    await dialog.getByRole("button", { name: "Add grant" }).click();
    await fillGrant(admin, 2, { role: "viewer", clusters: "", namespaces: reports });
    await h.screenshot(admin, "scoped-roles-new-user");
    await dialog.getByRole("button", { name: "Create user" }).click();
    await admin
      .getByRole("status")
      .filter({ hasText: `User ${username} created with role none and 2 grant(s)` })
      .waitFor();
    expect(await storedUser()).toMatchObject({
      role: "none",
      grants: [
        { role: "editor", clusters: [h.clusterId], namespaces: [shop] },
        { role: "viewer", namespaces: [reports] },
      ],
    });
    await admin
      .getByRole("list", { name: `Grants of ${username}` })
      .getByText(`editor in cluster ${h.clusterId}, namespace ${shop}`)
      .waitFor();

    const sam = await h.newPage();
    await sam.goto(`${h.url}/login`);
    await sam.getByLabel("Username").fill(username);
    await sam.getByLabel("Password").fill(password);
    await sam.getByRole("button", { name: "Sign in" }).click();
    await sam.getByRole("navigation", { name: "Main" }).waitFor();
    await sam.goto(`${h.url}/flags`);
    await sam.getByRole("link", { name: "shop-checkout", exact: true }).waitFor();
    await sam.getByRole("link", { name: "reports-daily", exact: true }).waitFor();
    // The list comes filtered by the API: the flag outside every grant is not there.
    expect(await sam.getByRole("link", { name: "payments-v2", exact: true }).count()).toBe(0);
    // Editor in shop: toggle; viewer in reports: the state as text; delete is an admin's.
    await poll(() =>
      rowOf(sam, "shop-checkout").getByRole("switch", { name: "Enabled shop-checkout" }).count(),
    ).toBe(1);
    expect(await rowOf(sam, "reports-daily").getByRole("switch").count()).toBe(0);
    expect(await rowOf(sam, "reports-daily").getByText("On", { exact: true }).count()).toBe(1);
    expect(await sam.getByRole("button", { name: /^Delete / }).count()).toBe(0);
    expect(await sam.getByRole("link", { name: "New flag" }).count()).toBe(1);
    // Admin-only sections are not offered to a user whose access is grants only.
    expect(
      await sam.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Webhooks" }).count(),
    ).toBe(0);

    // The toggle it is offered works: the FeatureFlag in the cluster follows.
    await rowOf(sam, "shop-checkout").getByRole("switch", { name: "Enabled shop-checkout" }).click();
    await poll(async () => (await h.featureFlag("shop-checkout")).spec.enabled).toBe(false);

    // Detail pages, reached by links (the app keeps the grants it has read): Edit only in shop;
    // the edit page of a reports flag says why not.
    await sam.getByRole("link", { name: "shop-checkout", exact: true }).click();
    await sam.getByRole("link", { name: "Edit" }).waitFor();
    await sam.goBack();
    await sam.getByRole("link", { name: "reports-daily", exact: true }).click();
    await sam.getByRole("heading", { name: "reports-daily" }).waitFor();
    expect(await sam.getByRole("link", { name: "Edit" }).count()).toBe(0);
    await sam.goto(`${h.url}/flags/${h.clusterId}/${reports}/reports-daily/edit`);
    await sam.getByText(`cannot edit flags in namespace ${reports} of cluster ${h.clusterId}`).waitFor();

    // New flag offers only the namespaces where it may create one.
    await sam.goto(`${h.url}/flags/new`);
    await sam.getByLabel("Cluster", { exact: true }).selectOption(h.clusterId);
    const namespaces = sam.getByLabel("Namespace", { exact: true });
    await poll(() => namespaces.locator("option").allTextContents()).toContain(shop);
    expect(await namespaces.locator("option").allTextContents()).not.toContain(reports);

    // The admin makes it an editor in reports too: the open list offers the toggle there, unasked.
    await sam.goto(`${h.url}/flags`);
    await sam.getByRole("link", { name: "reports-daily", exact: true }).waitFor();
    await admin.getByRole("button", { name: `Edit access of ${username}` }).click();
    const access = admin.getByRole("dialog", { name: `Access of ${username}` });
    await access.getByRole("group", { name: "Grant 2" }).getByLabel("Grant role").selectOption("editor");
    await access.getByRole("button", { name: "Save access" }).click();
    await admin
      .getByRole("status")
      .filter({ hasText: `Access of ${username} saved` })
      .waitFor();
    expect((await storedUser())?.grants).toMatchObject([
      { role: "editor" },
      { role: "editor", namespaces: [reports] },
    ]);
    await poll(() =>
      rowOf(sam, "reports-daily").getByRole("switch", { name: "Enabled reports-daily" }).count(),
    ).toBe(1);
    await h.screenshot(sam, "scoped-roles-flags");
    await h.screenshot(admin, "scoped-roles-users");
    await sam.close();
    await admin.close();
  });
  it("a plan's actions are offered only to a user who is an editor in its cluster and namespace", async () => {
    const name = `pat-${randomBytes(3).toString("hex")}`;
    const created = await h.api("admin").fetch("/api/v1/users", {
      method: "POST",
      body: JSON.stringify({
        username: name,
        password,
        role: "none",
        grants: [
          { role: "editor", namespaces: [shop] },
          { role: "viewer", namespaces: [reports] },
        ],
      }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    // Plans held a day ahead: nothing runs them here, and their actions stay offered (Pending).
    const startAt = new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z");
    const planOf = async (namespace: string, flag: string): Promise<string> => {
      const response = await h.api("admin").fetch("/api/v1/rollouts", {
        method: "POST",
        body: JSON.stringify({
          flag: { namespace, name: flag },
          change: { defaultValue: "false" },
          startAt,
          waves: [{ clusters: [h.clusterId] }],
        }),
      });
      expect(response.status, await response.clone().text()).toBe(201);
      return ((await response.json()) as { name: string }).name;
    };
    const shopPlan = await planOf(shop, "shop-checkout");
    const reportsPlan = await planOf(reports, "reports-daily");

    const pat = await h.newPage();
    await pat.goto(`${h.url}/login`);
    await pat.getByLabel("Username").fill(name);
    await pat.getByLabel("Password").fill(password);
    await pat.getByRole("button", { name: "Sign in" }).click();
    await pat.getByRole("navigation", { name: "Main" }).waitFor();
    await pat.goto(`${h.url}/rollouts/${shopPlan}`);
    const actions = pat.getByRole("toolbar", { name: "Plan actions" });
    await actions.getByRole("button", { name: "Abort" }).waitFor();
    expect(await actions.getByRole("button", { name: "Pause" }).count()).toBe(1);
    // Through the list, so the grants read for the first plan's page are what decides.
    await pat.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Rollouts" }).click();
    await pat.getByRole("link", { name: reportsPlan }).click();
    await pat.getByText(`${reports}/reports-daily`).first().waitFor();
    expect(await pat.getByRole("toolbar", { name: "Plan actions" }).count()).toBe(0);
    await pat.close();
    for (const plan of [shopPlan, reportsPlan]) {
      const abort = await h.api("admin").fetch(`/api/v1/rollouts/${plan}/abort`, { method: "POST" });
      expect(abort.status).toBe(200);
    }
  });
});
