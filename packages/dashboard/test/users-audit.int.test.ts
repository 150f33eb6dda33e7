// The users, account and audit pages in a real Chromium against the real API server.
import { readFile } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDashboardHarness, type DashboardHarness } from "./support/harness.ts";

let harness: DashboardHarness;

beforeAll(async () => {
  harness = await startDashboardHarness();
});

afterAll(async () => {
  await harness.close();
});

/** What the page shows, asked again until it holds (the page renders and refreshes on its own). */
const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 15_000 });

/** A username no other test (or earlier run on the same database) uses. */
const unique = (prefix: string) => `${prefix}-${randomBytes(3).toString("hex")}`;

async function apiCall(
  path: string,
  init: { method?: string; body?: unknown; token: string; accept?: string },
) {
  const response = await fetch(`${harness.apiUrl}${path}`, {
    method: init.method ?? "GET",
    headers: {
      authorization: `Bearer ${init.token}`,
      accept: init.accept ?? "application/json",
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: init.body === undefined ? null : JSON.stringify(init.body),
  });
  return { status: response.status, text: await response.text() };
}

async function token(username: string, password: string): Promise<string> {
  const response = await fetch(`${harness.apiUrl}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, password }),
  });
  expect(response.status, `login of ${username}`).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

/** Creates a user through the API as the harness's admin; returns the password. */
async function createUser(username: string, role: string): Promise<string> {
  const password = `${username}-password`;
  const response = await harness.api("admin").fetch("/api/v1/users", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, password, role }),
  });
  expect(response.status).toBe(201);
  return password;
}

async function users(): Promise<{ username: string; role: string }[]> {
  const response = await harness.api("admin").fetch("/api/v1/users");
  return (await response.json()) as { username: string; role: string }[];
}

/** Signs in through the login form, as a user would. */
async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.goto(`${harness.url}/login`);
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
}

/** A new page signed in as the harness's admin, at `path`. */
async function adminPage(path: string): Promise<Page> {
  const page = await harness.newPage();
  await harness.login(page, "admin");
  await page.goto(`${harness.url}${path}`);
  return page;
}

/** The user-management controls a page offers: none for a role that may not manage users. */
async function managementControls(page: Page): Promise<number> {
  const counts = await Promise.all([
    page.getByRole("button", { name: "New user" }).count(),
    page.getByRole("button", { name: /^Delete / }).count(),
    page.getByRole("button", { name: /^Reset password of / }).count(),
    page.getByRole("combobox", { name: /^Role of / }).count(),
  ]);
  return counts.reduce((a, b) => a + b, 0);
}

/** Chooses a role in the user's row and saves it. */
async function changeRole(page: Page, username: string, role: string): Promise<void> {
  await page.getByLabel(`Role of ${username}`).selectOption(role);
  await page
    .getByRole("row")
    .filter({ hasText: username })
    .getByRole("button", { name: "Save role" })
    .click();
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("button", { name: "Sign in" }).waitFor();
}

describe("users", () => {
  it("an admin creates a user and changes its role; that user then sees its role's view", async () => {
    const name = unique("carol");
    const admin = await adminPage(`/users`);
    await admin.getByRole("button", { name: "New user" }).click();
    const dialog = admin.getByRole("dialog", { name: "New user" });
    await dialog.getByLabel("Username").fill(name);
    await dialog.getByLabel("Password", { exact: true }).fill("short");
    await poll(() => dialog.getByText("must be at least 8 characters").isVisible()).toBe(true);
    await poll(() => dialog.getByRole("button", { name: "Create user" }).isDisabled()).toBe(true);
    await dialog.getByLabel("Password", { exact: true }).fill("carol-password");
    await dialog.getByLabel("Confirm password").fill("carol-password");
    await dialog.getByLabel("Role").selectOption("editor");
    await dialog.getByRole("button", { name: "Create user" }).click();
    await admin
      .getByRole("status")
      .filter({ hasText: `User ${name} created with role editor` })
      .waitFor();
    expect((await users()).find((u) => u.username === name)?.role).toBe("editor");

    // Choosing alone changes nothing (a keyboard user arrows through the roles); saving does.
    const row = admin.getByRole("row").filter({ hasText: name });
    await admin.getByLabel(`Role of ${name}`).selectOption("admin");
    await row.getByRole("button", { name: "Cancel" }).click();
    expect(await admin.getByLabel(`Role of ${name}`).inputValue()).toBe("editor");
    expect((await users()).find((u) => u.username === name)?.role).toBe("editor");
    await changeRole(admin, name, "viewer");
    await admin
      .getByRole("status")
      .filter({ hasText: `${name} is now viewer` })
      .waitFor();
    expect((await users()).find((u) => u.username === name)?.role).toBe("viewer");
    // The same locators find the controls where they are offered.
    expect(await managementControls(admin)).toBeGreaterThan(0);

    const carol = await harness.newPage();
    await signIn(carol, name, "carol-password");
    await carol
      .getByRole("link", { name: /Your account|viewer/ })
      .first()
      .waitFor();
    await carol.goto(`${harness.url}/account`);
    await carol
      .getByRole("definition")
      .filter({ hasText: /^viewer$/ })
      .waitFor();
    await carol.goto(`${harness.url}/users`);
    await carol.getByRole("table", { name: "Users" }).getByText(name).waitFor();
    expect(await managementControls(carol)).toBe(0);

    // A role change while signed in: the account page says so and offers to sign in again.
    await changeRole(admin, name, "editor");
    await admin
      .getByRole("status")
      .filter({ hasText: `${name} is now editor` })
      .waitFor();
    await carol.goto(`${harness.url}/account`);
    await carol.getByText("An admin changed your role from viewer to editor").waitFor();
    await carol.getByRole("button", { name: "Sign in again" }).click();
    await carol.getByRole("button", { name: "Sign in" }).waitFor();
    await carol.close();
    await admin.close();
  });

  it("refuses a taken username with the API's message next to the field", async () => {
    const name = unique("dup");
    await createUser(name, "viewer");
    const admin = await adminPage(`/users`);
    await admin.getByRole("button", { name: "New user" }).click();
    const dialog = admin.getByRole("dialog", { name: "New user" });
    await dialog.getByLabel("Username").fill(name);
    await dialog.getByLabel("Password", { exact: true }).fill("another-password");
    await dialog.getByLabel("Confirm password").fill("another-password");
    await dialog.getByRole("button", { name: "Create user" }).click();
    await dialog.getByText(`user ${name} already exists`).waitFor();
    await admin.close();
  });

  for (const role of ["editor", "viewer"] as const) {
    it(`the ${role} role is offered no user management and changes its own password`, async () => {
      const name = unique(role);
      const oldPassword = await createUser(name, role);
      const otherSession = await token(name, oldPassword);
      const page = await harness.newPage();
      await signIn(page, name, oldPassword);

      await page.goto(`${harness.url}/users`);
      await page.getByRole("table", { name: "Users" }).getByText(name).waitFor();
      expect(await managementControls(page)).toBe(0);

      await page.getByRole("link", { name: "Change your password" }).click();
      await page.waitForURL(/\/account$/);
      const form = page.getByRole("form", { name: "Change your password" });
      await form.getByLabel("New password", { exact: true }).fill(`${name}-new-password`);
      await form.getByLabel("Confirm new password").fill(`${name}-typo`);
      await form.getByText("does not match the new password").waitFor();
      await form.getByLabel("Confirm new password").fill(`${name}-new-password`);
      await form.getByRole("button", { name: "Change password" }).click();
      await form.getByRole("status").filter({ hasText: "Password changed" }).waitFor();

      // docs/api.md: the change ends the user's other sessions; the one that made it carries on.
      expect((await apiCall("/api/v1/auth/me", { token: otherSession })).status).toBe(401);
      await page.goto(`${harness.url}/account`);
      await page
        .getByRole("definition")
        .filter({ hasText: new RegExp(`^${name}$`) })
        .waitFor();

      await signOut(page);
      await page.getByLabel("Username").fill(name);
      await page.getByLabel("Password").fill(oldPassword);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("alert").filter({ hasText: "invalid username or password" }).waitFor();
      await signIn(page, name, `${name}-new-password`);
      await page.close();
    });
  }

  it("an admin deletes a user only after confirming", async () => {
    const name = unique("dave");
    await createUser(name, "viewer");
    const admin = await adminPage(`/users`);
    const row = admin.getByRole("row").filter({ hasText: name });

    await admin.getByRole("button", { name: `Delete ${name}` }).click();
    const confirm = admin.getByRole("alertdialog", { name: `Delete ${name}?` });
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await confirm.waitFor({ state: "hidden" });
    expect((await users()).some((u) => u.username === name)).toBe(true);

    await admin.getByRole("button", { name: `Delete ${name}` }).click();
    await confirm.getByRole("button", { name: "Delete user" }).click();
    await admin
      .getByRole("status")
      .filter({ hasText: `User ${name} deleted` })
      .waitFor();
    await row.waitFor({ state: "detached" });
    expect((await users()).some((u) => u.username === name)).toBe(false);
    // Yourself: not offered (the API refuses it).
    expect(await admin.getByRole("button", { name: "Delete admin" }).count()).toBe(0);
    await admin.close();
  });
});

describe("audit log", () => {
  /** An admin of its own makes user changes, so that filtering by actor finds exactly them. */
  async function auditedChanges() {
    const auditor = unique("auditor");
    const auditorToken = await token(auditor, await createUser(auditor, "admin"));
    const target = unique("erin");
    const call = (method: string, path: string, body?: unknown) =>
      apiCall(path, { method, body, token: auditorToken });
    expect(
      (await call("POST", "/api/v1/users", { username: target, password: "erin-password", role: "viewer" }))
        .status,
    ).toBe(201);
    expect((await call("PUT", `/api/v1/users/${target}`, { role: "editor" })).status).toBe(200);
    expect((await call("DELETE", `/api/v1/users/${target}`)).status).toBe(200);
    return { auditor, target };
  }

  it("filters by resource, action and actor and shows each event's details", async () => {
    const { auditor, target } = await auditedChanges();
    const page = await adminPage(`/audit`);
    const filters = page.getByRole("form", { name: "Audit filters" });
    await filters.getByLabel("Actor").fill(auditor);
    await filters.getByRole("button", { name: "Apply filters" }).click();
    await filters.getByLabel("Resource").selectOption("user");

    const table = page.getByRole("table", { name: "Audit events" });
    const rows = table.locator("tbody > tr.audit-row");
    await poll(() => rows.count()).toBe(3);
    const actions = await rows.locator("td:nth-child(3)").allTextContents();
    expect(actions).toEqual(["delete", "update", "create"]);
    for (const text of await rows.allTextContents()) expect(text).toContain(`user ${target}`);

    await filters.getByLabel("Action").selectOption("update");
    await poll(() => rows.count()).toBe(1);
    await rows
      .first()
      .getByRole("button", { name: /^Details of event/ })
      .click();
    const changes = page.getByRole("table", { name: /^Changes of event/ });
    await poll(() => changes.getByRole("row").filter({ hasText: "role" }).textContent()).toMatch(
      /role\s*viewer\s*editor/,
    );
    expect(new URL(page.url()).searchParams.toString()).toBe(`resource=user&action=update&actor=${auditor}`);

    // The filter lives in the URL: a reload shows the same events.
    await page.reload();
    await poll(() => rows.count()).toBe(1);

    // The newest page is live: a change made through the API appears without a reload.
    const auditorToken = await token(auditor, `${auditor}-password`);
    const change = { method: "PUT", body: { password: `${auditor}-password2` }, token: auditorToken };
    expect((await apiCall(`/api/v1/users/${auditor}`, change)).status).toBe(200);
    await poll(() => rows.count()).toBe(2);
    await page.close();
  });

  it("exports the current filter as a CSV file whose rows match it", async () => {
    const { auditor } = await auditedChanges();
    const page = await adminPage(`/audit?resource=user&actor=${auditor}`);
    await poll(() => page.locator("tbody > tr.audit-row").count()).toBe(3);

    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export CSV" }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^svc-audit-\d{4}-\d{2}-\d{2}\.csv$/);
    const path = await file.path();
    const lines = (await readFile(path, "utf8")).trimEnd().split("\r\n");
    const header = lines[0]?.split(",") ?? [];
    expect(header.slice(0, 6)).toEqual(["id", "timestamp", "actor", "actorRole", "action", "resource"]);
    const rows = lines.slice(1).map((line) => line.split(","));
    expect(rows.map((r) => r[4])).toEqual(["delete", "update", "create"]);
    for (const row of rows) {
      expect(row[2]).toBe(auditor);
      expect(row[5]).toBe("user");
    }
    await page.close();
  });

  it("pages through older and newer events with the page size chosen", async () => {
    const auditor = unique("pager");
    const auditorToken = await token(auditor, await createUser(auditor, "admin"));
    const target = unique("flip");
    await createUser(target, "viewer");
    // 26 audited role changes: one more than the smallest page.
    for (let i = 0; i < 26; i++) {
      const role = i % 2 === 0 ? "editor" : "viewer";
      const reply = await apiCall(`/api/v1/users/${target}`, {
        method: "PUT",
        body: { role },
        token: auditorToken,
      });
      expect(reply.status).toBe(200);
    }
    const page = await adminPage(`/audit?resource=user&actor=${auditor}`);
    const rows = page.locator("tbody > tr.audit-row");
    await poll(() => rows.count()).toBe(26);
    await page.getByLabel("Events per page").selectOption("25");
    await poll(() => rows.count()).toBe(25);
    const newest = await rows.first().textContent();

    await page.getByRole("button", { name: "Older" }).click();
    await poll(() => rows.count()).toBe(1);
    expect(page.url()).toMatch(/before=\d+/);
    expect(await page.getByRole("button", { name: "Older" }).isDisabled()).toBe(true);

    await page.getByRole("button", { name: "Newer" }).click();
    await poll(() => rows.count()).toBe(25);
    expect(await rows.first().textContent()).toBe(newest);
    expect(await page.getByRole("button", { name: "Newer" }).isDisabled()).toBe(true);
    await page.close();
  });
});

describe("screenshots", () => {
  it("of the users, account and audit pages in both themes and at 360 px", async () => {
    for (const theme of ["light", "dark"] as const) {
      const page = await harness.newPage({ theme });
      await harness.login(page, "admin");
      for (const [path, name, role, ready] of [
        ["/users", "users-list", "table", "Users"],
        ["/account", "users-account", "form", "Change your password"],
        ["/audit", "audit-log", "table", "Audit events"],
      ] as const) {
        await page.goto(`${harness.url}${path}`);
        await page.getByRole(role, { name: ready }).waitFor();
        await harness.screenshot(page, `${name}-${theme}`);
      }
      await page.close();
    }
    const narrow = await harness.newPage({ width: 360 });
    await harness.login(narrow, "admin");
    for (const [path, name] of [
      ["/users", "users-list-360"],
      ["/audit", "audit-log-360"],
    ] as const) {
      await narrow.goto(`${harness.url}${path}`);
      await narrow.getByRole("table").first().waitFor();
      await harness.screenshot(narrow, name);
    }
    await narrow.close();
  });
});
