// Single sign-on in a real Chromium: the login page's "Sign in with …" button, the OpenID
// provider's own login page (oidc-provider on loopback), and back to the flag list as editor,
// able to toggle a flag; a user of no mapped group gets the "no role" page. Both sign-ins audited.
// A code from another browser's sign-in (an attacker's link) signs nobody in.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, SsoBrowser } from "../../api/test/support/sso-browser.ts";
import {
  SSO_ACCOUNTS,
  SSO_CLIENT,
  SSO_ROLES,
  startOidcProvider,
  type TestOidcProvider,
} from "../../../test/support/oidc-provider.ts";
import { startDashboardHarness, type DashboardHarness } from "./support/harness.ts";

let h: DashboardHarness;
let provider: TestOidcProvider;

beforeAll(async () => {
  const port = await freePort();
  const redirectUrl = `http://127.0.0.1:${port}/api/v1/auth/sso/callback`;
  provider = await startOidcProvider([redirectUrl]);
  h = await startDashboardHarness("dash-sso", {
    dashboardPort: port,
    api: {
      sso: {
        issuerUrl: provider.issuer,
        clientId: SSO_CLIENT.id,
        clientSecret: SSO_CLIENT.secret,
        redirectUrl,
        providerName: "Test IdP",
        scopes: "openid profile email groups",
        usernameClaim: "preferred_username",
        roleClaim: "groups",
        roles: SSO_ROLES,
      },
    },
  });
  const created = await h.api("admin").fetch("/api/v1/flags", {
    method: "POST",
    body: JSON.stringify({
      name: "sso-checkout",
      namespace: h.namespace,
      clusterId: h.clusterId,
      type: "boolean",
      defaultValue: "true",
      description: "Toggled by a single sign-on user",
      delivery: { envVar: { selector: { matchLabels: { app: "sso-checkout" } } } },
    }),
  });
  expect(created.status, await created.clone().text()).toBe(201);
});

afterAll(async () => {
  await h.close();
  await provider.close();
});

/** From the dashboard's login page through the provider's login page, as `login`. */
async function signInWithProvider(page: Page, login: string): Promise<void> {
  await page.goto(`${h.url}/flags`);
  await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password");
  await page.getByRole("button", { name: "Sign-in" }).click();
}

async function lastSessionEvent(): Promise<Record<string, unknown> | undefined> {
  const response = await h.api("admin").fetch("/api/v1/audit?resource=session&limit=1");
  return ((await response.json()) as Record<string, unknown>[])[0];
}

describe("single sign-on in the dashboard", () => {
  it("signs a flags-editors member in as editor, back on the flag list, able to toggle a flag", async () => {
    const page = await h.newPage();
    await signInWithProvider(page, SSO_ACCOUNTS.editor.id);
    await page.getByRole("navigation", { name: "Main" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/flags");
    expect(new URL(page.url()).hash).toBe("");
    await expect.poll(() => page.getByRole("link", { name: /jane/ }).textContent()).toContain("editor");
    // The shared test cluster holds other files' flags: more than a page, so list this file's own.
    await page.goto(`${h.url}/flags?namespace=${h.namespace}&cluster=${h.clusterId}`);
    const toggle = page.getByRole("switch", { name: "Enabled sso-checkout" });
    expect(await toggle.getAttribute("aria-checked")).toBe("true");
    await toggle.click();
    await expect.poll(async () => (await h.featureFlag("sso-checkout")).spec.enabled).toBe(false);
    const toggled = await h.api("admin").fetch("/api/v1/audit?resource=flag&limit=1");
    expect(((await toggled.json()) as unknown[])[0]).toMatchObject({ actor: "jane", action: "toggle" });
    expect(await lastSessionEvent()).toMatchObject({ actor: "jane", action: "login", outcome: "success" });
    await page.close();
  });

  it("signs nobody in with a code from another browser's sign-in (login CSRF)", async () => {
    // The attacker signs in as themselves and stops before their own /sso page…
    const attacker = new SsoBrowser();
    const callback = await attacker.signInAtProvider(
      `${h.url}/api/v1/auth/sso/login`,
      SSO_ACCOUNTS.editor.id,
      `${h.url}/api/v1/auth/sso/callback`,
    );
    const code = (await attacker.callback(callback)).fragment.get("code") ?? "";
    expect(code).not.toBe("");
    // …and sends the victim the link.
    const page = await h.newPage();
    await page.goto(`${h.url}/sso#code=${code}`);
    await page.getByRole("heading", { name: "Sign-in not started here" }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem("svc.session"))).toBeNull();
    await page.close();
  });

  it("shows a user of no mapped group the no-role page", async () => {
    const page = await h.newPage();
    await signInWithProvider(page, SSO_ACCOUNTS.unmapped.id);
    await page.getByRole("heading", { name: "No role in svc" }).waitFor();
    expect(await page.getByText("Signed in at the identity provider as").textContent()).toContain("sam");
    expect(await page.evaluate(() => localStorage.getItem("svc.session"))).toBeNull();
    expect(await lastSessionEvent()).toMatchObject({
      actor: "sam",
      action: "login_failed",
      outcome: "denied",
    });
    await page.close();
  });
});
