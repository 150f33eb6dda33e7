// Single sign-on against a real OpenID provider (oidc-provider on loopback), over real HTTP: the
// whole authorization-code flow with PKCE through the provider's own login page, the user made
// on first sign-in, the session handed over once, the refusals (unmapped user, forged state,
// replayed code, wrong issuer, another browser), password login refused for an SSO user or
// turned off, and every sign-in in the audit log; on SQLite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  SSO_ACCOUNTS,
  SSO_CLIENT,
  SSO_ROLES,
  startOidcProvider,
  type TestOidcProvider,
} from "../../../test/support/oidc-provider.ts";
import type { ApiConfig, DatabaseConfig } from "../src/config.ts";
import { ADMIN_PASSWORD, BACKENDS, TestApi, testConfig } from "./support/harness.ts";
import { freePort, SsoBrowser } from "./support/sso-browser.ts";

let provider: TestOidcProvider;
/** Each backend's API port, chosen first: the provider must know every callback URL. */
const ports = new Map<string, number>();
const callbackOf = (port: number) => `http://127.0.0.1:${port}/api/v1/auth/sso/callback`;

beforeAll(async () => {
  for (const backend of BACKENDS) ports.set(backend.name, await freePort());
  provider = await startOidcProvider([...ports.values()].map(callbackOf));
});

afterAll(async () => {
  await provider.close();
});

/** An API on `port` whose single sign-on goes to the provider at `issuer`. */
function ssoApiConfig(database: DatabaseConfig, port: number, issuer: string): ApiConfig {
  return {
    ...testConfig(database),
    port,
    sso: {
      issuerUrl: issuer,
      clientId: SSO_CLIENT.id,
      clientSecret: SSO_CLIENT.secret,
      redirectUrl: callbackOf(port),
      providerName: "Test IdP",
      scopes: "openid profile email groups",
      usernameClaim: "preferred_username",
      roleClaim: "groups",
      roles: SSO_ROLES,
    },
  };
}

interface Event {
  actor: string;
  actorRole: string;
  action: string;
  outcome: string;
  details: Record<string, unknown>;
}

describe.each(BACKENDS)("single sign-on on $name", (backend) => {
  let api: TestApi;
  let config: ApiConfig;
  let removeDatabase: () => Promise<void>;
  let adminToken: string;
  let callbackUrl: string;

  beforeAll(async () => {
    const port = ports.get(backend.name) ?? 0;
    callbackUrl = callbackOf(port);
    const { database, remove } = await backend.open();
    removeDatabase = remove;
    config = ssoApiConfig(database, port, provider.issuer);
    api = await TestApi.start(config);
    adminToken = await api.login("admin", ADMIN_PASSWORD);
  });

  afterAll(async () => {
    await api.close();
    await removeDatabase();
  });

  const loginUrl = () => `${api.url}/api/v1/auth/sso/login`;

  /** A sign-in as `account` up to the provider's redirect back (the callback URL, not yet visited). */
  async function toCallback(account: { id: string }, browser = new SsoBrowser()) {
    return { browser, url: await browser.signInAtProvider(loginUrl(), account.id, callbackUrl) };
  }

  async function sessionEvents(): Promise<Event[]> {
    const reply = await api.call("GET", "/api/v1/audit?resource=session&limit=1000", { token: adminToken });
    return reply.json as Event[];
  }

  /** The details of the row counting this address's refused callbacks this hour. */
  async function callbackRefusals(): Promise<Record<string, unknown> | undefined> {
    const events = await sessionEvents();
    const row = events.find(
      (e) => e.action === "login_failed" && String(e.details["lastError"]).startsWith("single sign-on"),
    );
    return row?.details;
  }

  /** The refusals recorded since `count` events ago, newest first. */
  async function newEvents(before: number): Promise<Event[]> {
    const events = await sessionEvents();
    return events.slice(0, events.length - before);
  }

  it("tells the login page how users sign in", async () => {
    const reply = await api.call("GET", "/api/v1/auth/methods");
    expect(reply.json).toEqual({
      passwordLogin: true,
      sso: { providerName: "Test IdP", loginPath: "/api/v1/auth/sso/login" },
    });
  });

  it("signs a flags-editors member in as editor, once, and records it", async () => {
    const { browser, url } = await toCallback(SSO_ACCOUNTS.editor);
    expect(browser.cookies.has("svc_sso")).toBe(true);
    const back = await browser.callback(url);
    expect(back.status).toBe(303);
    expect(`${back.landing.origin}${back.landing.pathname}`).toBe(`${api.url}/sso`);
    const code = back.fragment.get("code") ?? "";
    expect(code).not.toBe("");

    const handoff = await browser.redeem(api.url, code);
    expect(handoff.status).toBe(200);
    const session = handoff.json as { token: string; user: { username: string; role: string } };
    expect(session.token).toMatch(/^[0-9a-f]{64}$/);
    expect(session.user).toMatchObject({ username: "jane", role: "editor" });
    expect((await api.call("GET", "/api/v1/auth/me", { token: session.token })).json).toEqual(session.user);
    // The browser's binding is spent with the code, and the code is good once.
    expect(browser.cookies.has("svc_sso")).toBe(false);
    expect((await browser.redeem(api.url, code)).status).toBe(400);

    const [event] = await sessionEvents();
    expect(event).toMatchObject({
      actor: "jane",
      actorRole: "editor",
      action: "login",
      outcome: "success",
      details: { method: "sso", issuer: provider.issuer, role: "editor" },
    });
    const log = JSON.stringify(await sessionEvents());
    expect(log).not.toContain(session.token);
    expect(log).not.toContain(code);
    expect(log).not.toContain(url.searchParams.get("code"));
  });

  /** A whole sign-in as `account` in a browser of its own: the session's user. */
  async function signIn(account: { id: string }): Promise<unknown> {
    const { browser, url } = await toCallback(account);
    const code = (await browser.callback(url)).fragment.get("code") ?? "";
    const handoff = await browser.redeem(api.url, code);
    expect(handoff.status).toBe(200);
    return (handoff.json as { user: unknown }).user;
  }

  it("refuses a sign-in's code in any browser but the one that started it (login CSRF)", async () => {
    // The attacker signs in as themselves and stops before their own /sso page…
    const attacker = await toCallback(SSO_ACCOUNTS.editor);
    const code = (await attacker.browser.callback(attacker.url)).fragment.get("code") ?? "";
    expect(code).not.toBe("");
    // …and sends the victim /sso#code=…: the victim's browser has no binding, or its own.
    const victim = new SsoBrowser();
    const refused = await victim.redeem(api.url, code);
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      error: "unknown, used or expired sign-in code, or one started in another browser: sign in again",
    });
    const own = await toCallback(SSO_ACCOUNTS.unmapped, victim);
    expect(victim.cookies.has("svc_sso")).toBe(true);
    const second = await toCallback(SSO_ACCOUNTS.editor);
    const code2 = (await second.browser.callback(second.url)).fragment.get("code") ?? "";
    expect((await own.browser.redeem(api.url, code2)).status).toBe(400);
    // Without any cookie (a script elsewhere) as well; the code is then spent.
    const third = await toCallback(SSO_ACCOUNTS.editor);
    const code3 = (await third.browser.callback(third.url)).fragment.get("code") ?? "";
    expect((await api.call("POST", "/api/v1/auth/sso/session", { body: { code: code3 } })).status).toBe(400);
    expect((await third.browser.redeem(api.url, code3)).status).toBe(400);
  });

  it("keeps an admin's role change of an SSO user when no group maps, and applies a group that does", async () => {
    provider.setGroups(SSO_ACCOUNTS.changing.id, ["flags-viewers"]);
    expect(await signIn(SSO_ACCOUNTS.changing)).toMatchObject({ username: "kim", role: "viewer" });
    // The provider no longer puts kim in a mapped group; an admin makes kim an editor.
    provider.setGroups(SSO_ACCOUNTS.changing.id, ["staff"]);
    const put = await api.call("PUT", "/api/v1/users/kim", { token: adminToken, body: { role: "editor" } });
    expect(put.status).toBe(200);
    expect(await signIn(SSO_ACCOUNTS.changing)).toMatchObject({ username: "kim", role: "editor" });
    // A mapped group says otherwise: it applies.
    provider.setGroups(SSO_ACCOUNTS.changing.id, ["flags-viewers"]);
    expect(await signIn(SSO_ACCOUNTS.changing)).toMatchObject({ username: "kim", role: "viewer" });
  });

  it("refuses a user whose groups map to no role, creating nobody", async () => {
    const before = (await sessionEvents()).length;
    const { browser, url } = await toCallback(SSO_ACCOUNTS.unmapped);
    const back = await browser.callback(url);
    expect(back.status).toBe(303);
    expect(Object.fromEntries(back.fragment)).toEqual({ error: "no-role", user: "sam" });
    const users = (await api.call("GET", "/api/v1/users", { token: adminToken })).json as {
      username: string;
    }[];
    expect(users.map((u) => u.username)).not.toContain("sam");
    expect(await newEvents(before)).toMatchObject([
      { actor: "sam", action: "login_failed", outcome: "denied", details: { status: 403 } },
    ]);
  });

  it("refuses a forged state, a state used twice, and a sign-in finished in another browser", async () => {
    const before = (await sessionEvents()).length;
    const { browser, url } = await toCallback(SSO_ACCOUNTS.editor);
    const forged = new URL(url);
    forged.searchParams.set("state", "forged-state");
    expect((await browser.callback(forged)).fragment.get("error")).toBe("expired");

    const elsewhere = await toCallback(SSO_ACCOUNTS.editor);
    expect((await new SsoBrowser().callback(elsewhere.url)).fragment.get("error")).toBe("expired");

    // The real state still works once, then never again.
    expect((await browser.callback(url)).fragment.has("code")).toBe(true);
    expect((await browser.callback(url)).fragment.get("error")).toBe("expired");
    // The three refusals are one row for this address and hour (anyone can make a state up).
    const events = await newEvents(before);
    expect(events.map((e) => [e.action, e.outcome])).toEqual([
      ["login", "success"],
      ["login_failed", "failure"],
    ]);
    expect(events[1]?.details).toMatchObject({
      status: 400,
      error: "single sign-on refused: unknown, used or expired state",
      refusals: 3,
      statuses: { "400": 3 },
      summary: "3 refused logins from 127.0.0.1",
    });
  });

  it("refuses a code used before, even under a new sign-in's state", async () => {
    const first = await toCallback(SSO_ACCOUNTS.editor);
    expect((await first.browser.callback(first.url)).fragment.has("code")).toBe(true);
    const second = await toCallback(SSO_ACCOUNTS.editor);
    const replay = new URL(second.url);
    replay.searchParams.set("code", first.url.searchParams.get("code") ?? "");
    const back = await second.browser.callback(replay);
    expect(back.fragment.get("error")).toBe("provider");
    expect((await callbackRefusals())?.["lastError"]).toMatch(/invalid_grant/);
  });

  it("refuses an answer naming another issuer", async () => {
    const { browser, url } = await toCallback(SSO_ACCOUNTS.editor);
    const wrong = new URL(url);
    wrong.searchParams.set("iss", "https://evil.example");
    expect((await browser.callback(wrong)).fragment.get("error")).toBe("provider");
    const refusals = await callbackRefusals();
    expect(refusals).toMatchObject({ lastStatus: 401 });
    expect(refusals?.["lastError"]).toMatch(/iss/);
  });

  it("counts a flood of made-up callbacks in one row per address and hour", async () => {
    await api.call("GET", `${new URL(callbackUrl).pathname}?state=first-forged-state&code=x`);
    const rows = async () => (await sessionEvents()).filter((e) => e.action === "login_failed").length;
    const before = await rows();
    const counted = Number((await callbackRefusals())?.["refusals"]);
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          api.call("GET", `${new URL(callbackUrl).pathname}?state=forged-${batch}-${i}&code=x`),
        ),
      );
    }
    expect(await rows()).toBe(before);
    expect(Number((await callbackRefusals())?.["refusals"])).toBe(counted + 300);
  });

  it("refuses a password login of an SSO user, and setting a password for one", async () => {
    const login = await api.call("POST", "/api/v1/auth/login", {
      body: { username: "jane", password: "a-guessed-password" },
    });
    expect(login.status).toBe(403);
    expect(login.json).toEqual({ error: "user jane signs in with single sign-on, not a password" });
    const [event] = await sessionEvents();
    expect(event).toMatchObject({ actor: "jane", action: "login_failed", outcome: "denied" });
    const put = await api.call("PUT", "/api/v1/users/jane", {
      token: adminToken,
      body: { password: "new-password-1" },
    });
    expect(put.status).toBe(400);
  });

  it("with password login turned off, lets only admin log in with a password", async () => {
    await api.createUser(adminToken, "pat", "viewer");
    const off = await TestApi.start({ ...config, port: 0, passwordLogin: false });
    try {
      const pat = await off.call("POST", "/api/v1/auth/login", {
        body: { username: "pat", password: "pat-password" },
      });
      expect(pat.status).toBe(403);
      expect(pat.json).toEqual({ error: "password login is turned off: sign in with single sign-on" });
      expect(await off.login("admin", ADMIN_PASSWORD)).toMatch(/^[0-9a-f]{64}$/);
      expect((await off.call("GET", "/api/v1/auth/methods")).json).toMatchObject({ passwordLogin: false });
    } finally {
      await off.close();
    }
  });
});

describe("single sign-on with usernames from e-mail addresses", () => {
  it("takes a username only from a verified address", async () => {
    const port = await freePort();
    const callbackUrl = callbackOf(port);
    const own = await startOidcProvider([callbackUrl]);
    const sqlite = BACKENDS.find((backend) => backend.name === "sqlite");
    if (sqlite === undefined) throw new Error("no SQLite backend");
    const { database, remove } = await sqlite.open();
    const base = ssoApiConfig(database, port, own.issuer);
    const sso = base.sso === undefined ? undefined : { ...base.sso, usernameClaim: "email" };
    const api = await TestApi.start({ ...base, sso });
    try {
      const signIn = async (id: string) => {
        const browser = new SsoBrowser();
        const url = await browser.signInAtProvider(`${api.url}/api/v1/auth/sso/login`, id, callbackUrl);
        return { browser, back: await browser.callback(url) };
      };
      // Una typed jane's address at the provider, which did not verify it.
      const una = await signIn(SSO_ACCOUNTS.unverified.id);
      expect(Object.fromEntries(una.back.fragment)).toEqual({ error: "no-username" });
      const jane = await signIn(SSO_ACCOUNTS.editor.id);
      const code = jane.back.fragment.get("code") ?? "";
      const handoff = await jane.browser.redeem(api.url, code);
      expect(handoff.json).toMatchObject({ user: { username: "jane-example.com", role: "editor" } });
    } finally {
      await api.close();
      await own.close();
      await remove();
    }
  });
});

describe("single sign-on with a provider that keeps the scopes' claims out of the ID token", () => {
  it("reads the username and groups from UserInfo", async () => {
    const port = await freePort();
    const callbackUrl = callbackOf(port);
    const conformant = await startOidcProvider([callbackUrl], "userinfo");
    const sqlite = BACKENDS.find((backend) => backend.name === "sqlite");
    if (sqlite === undefined) throw new Error("no SQLite backend");
    const { database, remove } = await sqlite.open();
    const api = await TestApi.start(ssoApiConfig(database, port, conformant.issuer));
    try {
      const browser = new SsoBrowser();
      const url = await browser.signInAtProvider(
        `${api.url}/api/v1/auth/sso/login`,
        SSO_ACCOUNTS.editor.id,
        callbackUrl,
      );
      const back = await browser.callback(url);
      const code = back.fragment.get("code") ?? "";
      expect(Object.fromEntries(back.fragment)).toEqual({ code });
      const handoff = await browser.redeem(api.url, code);
      expect(handoff.json).toMatchObject({ user: { username: "jane", role: "editor" } });
    } finally {
      await api.close();
      await conformant.close();
      await remove();
    }
  });
});
