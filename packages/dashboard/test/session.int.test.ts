// The app shell in a real Chromium against the real API: signing in and out, a session the API
// ends (back to login with a message, then back to the same page), the API server going away
// (a clear banner, not a blank page), and the theme.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDashboardHarness, type DashboardHarness } from "./support/harness.ts";

let h: DashboardHarness;

beforeAll(async () => {
  h = await startDashboardHarness();
});

afterAll(async () => {
  await h.close();
});

const mainNav = (page: Page) => page.getByRole("navigation", { name: "Main" });

async function sessionToken(page: Page): Promise<string> {
  const stored = await page.evaluate(() => localStorage.getItem("svc.session"));
  const session = JSON.parse(stored ?? "null") as { token?: string } | null;
  if (typeof session?.token !== "string") throw new Error("no session stored");
  return session.token;
}

describe("signing in", () => {
  it("sends a visitor to the login page and back to the page they asked for", async () => {
    const page = await h.newPage();
    await page.goto(`${h.url}/audit?resource=flag`);
    await expect.poll(() => new URL(page.url()).pathname).toBe("/login");
    await page.getByLabel("Username").fill("viewer");
    await page.getByLabel("Password").fill(h.passwords.viewer);
    await page.getByRole("button", { name: "Sign in" }).click();
    await mainNav(page).waitFor();
    const url = new URL(page.url());
    expect(`${url.pathname}${url.search}`).toBe("/audit?resource=flag");
    await expect.poll(() => page.getByRole("link", { name: /viewer/ }).textContent()).toContain("viewer");
    await page.close();
  });

  it("shows the API's message for a wrong password and stays on the login page", async () => {
    const page = await h.newPage();
    await page.goto(`${h.url}/login`);
    await page.getByLabel("Username").fill("editor");
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    // The answer waits for a bcrypt comparison, which takes seconds on a loaded machine (the
    // poll's own default is one second).
    await expect
      .poll(() => page.getByRole("alert").textContent(), { timeout: 15_000 })
      .toMatch(/invalid username or password/i);
    expect(new URL(page.url()).pathname).toBe("/login");
    expect(await page.evaluate(() => localStorage.getItem("svc.session"))).toBeNull();
    await page.close();
  });

  it("signs out: the token stops working and the login page says so", async () => {
    const page = await h.newPage();
    await h.login(page, "editor");
    const token = await sessionToken(page);
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toMatch(/signed out/i);
    const me = await fetch(`${h.apiUrl}/api/v1/auth/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(401);
    await page.close();
  });
});

describe("a session the API ends", () => {
  it("goes back to login with a message, and after signing in returns to the same page", async () => {
    const page = await h.newPage();
    await h.login(page, "admin");
    await page.goto(`${h.url}/users`);
    await mainNav(page).waitFor();
    // The API ends the session (as expiry or an admin's action would); the page's next refresh
    // gets 401.
    const token = await sessionToken(page);
    const logout = await fetch(`${h.apiUrl}/api/v1/auth/logout`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(logout.status).toBe(200);
    await page.reload();
    await expect.poll(() => new URL(page.url()).pathname, { timeout: 15_000 }).toBe("/login");
    expect(await page.getByRole("status").textContent()).toMatch(/session has expired/i);
    await page.getByLabel("Username").fill("admin");
    await page.getByLabel("Password").fill(h.passwords.admin);
    await page.getByRole("button", { name: "Sign in" }).click();
    await mainNav(page).waitFor();
    expect(new URL(page.url()).pathname).toBe("/users");
    await page.close();
  });
});

describe("a session that expired while the app was closed", () => {
  it("opens on the login page saying so, and returns to the page asked for", async () => {
    const page = await h.newPage();
    await h.login(page, "editor");
    // Its expiry time passes (the browser's copy says so; the API would refuse it too).
    await page.evaluate(`(() => {
      const session = JSON.parse(localStorage.getItem("svc.session"));
      localStorage.setItem("svc.session", JSON.stringify({ ...session, expiresAt: "2000-01-01T00:00:00Z" }));
    })()`);
    await page.goto(`${h.url}/clusters`);
    await expect.poll(() => new URL(page.url()).pathname).toBe("/login");
    expect(await page.getByRole("status").textContent()).toMatch(/session has expired/i);
    expect(await page.evaluate(`localStorage.getItem("svc.session")`)).toBeNull();
    await page.getByLabel("Username").fill("editor");
    await page.getByLabel("Password").fill(h.passwords.editor);
    await page.getByRole("button", { name: "Sign in" }).click();
    await mainNav(page).waitFor();
    expect(new URL(page.url()).pathname).toBe("/clusters");
    await page.close();
  });
});

describe("the API server stopped", () => {
  it("shows a clear message instead of a blank page, and recovers when it returns", async () => {
    const page = await h.newPage();
    await h.login(page, "viewer");
    await page.goto(`${h.url}/flags`);
    await mainNav(page).waitFor();
    await h.stopApi();
    try {
      // The flag list refreshes every few seconds; the next refresh meets the proxy's 502.
      const banner = page.getByRole("alert").filter({ hasText: "API server unreachable" });
      await banner.waitFor({ timeout: 20_000 });
      expect(await banner.textContent()).toMatch(/unreachable/i);
      await expect.poll(() => mainNav(page).isVisible()).toBe(true);
      await h.screenshot(page, "api-unreachable-light");
    } finally {
      await h.startApi();
    }
    await page
      .getByRole("alert")
      .filter({ hasText: "API server unreachable" })
      .waitFor({ state: "detached", timeout: 20_000 });
    await page.close();
  });
});

describe("theme", () => {
  it("follows the system's colour scheme until the user chooses, then keeps the choice", async () => {
    const page = await h.newPage({ theme: "dark" });
    await h.login(page, "viewer");
    const theme = () => page.locator("html").getAttribute("data-theme");
    expect(await theme()).toBe("dark");
    await page.getByRole("button", { name: "Switch to light theme" }).click();
    expect(await theme()).toBe("light");
    await page.reload();
    await mainNav(page).waitFor();
    expect(await theme()).toBe("light");
    await page.close();
  });
});
