import { describe, expect, it } from "vitest";
import { parseApiConfig } from "../src/config.ts";
import { OneTimeStore } from "../src/sso/one-time.ts";

const SSO = {
  SVC_OIDC_ISSUER_URL: "https://idp.example.com/realms/main",
  SVC_OIDC_CLIENT_ID: "svc",
  SVC_OIDC_CLIENT_SECRET: "s3cret",
  SVC_OIDC_REDIRECT_URL: "https://flags.example.com/api/v1/auth/sso/callback",
  SVC_OIDC_EDITOR_GROUPS: "flags-editors, devs",
};

describe("single sign-on settings", () => {
  it("are off without an issuer, and read with their defaults with one", () => {
    const off = parseApiConfig({});
    expect(off.ok && off.value.sso).toBe(undefined);
    const parsed = parseApiConfig(SSO);
    expect(parsed.ok && parsed.value.sso).toEqual({
      issuerUrl: SSO.SVC_OIDC_ISSUER_URL,
      clientId: "svc",
      clientSecret: "s3cret",
      redirectUrl: SSO.SVC_OIDC_REDIRECT_URL,
      providerName: "single sign-on",
      scopes: "openid profile email",
      usernameClaim: "preferred_username",
      roleClaim: "groups",
      roles: { admin: [], editor: ["flags-editors", "devs"], viewer: [] },
      groupGrants: [],
    });
  });

  it("read group grants, alone enough to sign in, and name a bad one", () => {
    const grants = [{ group: "team-shop", grant: { role: "editor", namespaces: ["shop-*"] } }];
    const noRoles = { ...SSO, SVC_OIDC_EDITOR_GROUPS: "" };
    const parsed = parseApiConfig({ ...noRoles, SVC_OIDC_GROUP_GRANTS: JSON.stringify(grants) });
    expect(parsed.ok && parsed.value.sso?.groupGrants).toEqual(grants);
    const bad = parseApiConfig({
      ...SSO,
      SVC_OIDC_GROUP_GRANTS: '[{"group": "x", "grant": {"role": "root"}}]',
    });
    expect(bad.ok ? [] : bad.errors.map((e) => `${e.field}: ${e.message}`)).toEqual([
      expect.stringMatching(/^SVC_OIDC_GROUP_GRANTS: \[0\]\.grant\.0\.role/) as string,
    ]);
  });

  it("name every missing or bad variable", () => {
    const fields = (env: Record<string, string>) => {
      const parsed = parseApiConfig(env);
      return parsed.ok ? [] : parsed.errors.map((e) => e.field);
    };
    expect(fields({ SVC_OIDC_ISSUER_URL: "http://idp.example.com" })).toEqual([
      "SVC_OIDC_ISSUER_URL",
      "SVC_OIDC_CLIENT_ID",
      "SVC_OIDC_CLIENT_SECRET",
      "SVC_OIDC_REDIRECT_URL",
      "SVC_OIDC_ADMIN_GROUPS",
    ]);
    expect(fields({ ...SSO, SVC_OIDC_ISSUER_URL: "http://127.0.0.1:8000" })).toEqual([]);
    expect(fields({ ...SSO, SVC_OIDC_REDIRECT_URL: "https://flags.example.com/callback" })).toEqual([
      "SVC_OIDC_REDIRECT_URL",
    ]);
    expect(fields({ ...SSO, SVC_OIDC_SCOPES: "profile" })).toEqual(["SVC_OIDC_SCOPES"]);
    expect(fields({ SVC_PASSWORD_LOGIN: "false" })).toEqual(["SVC_PASSWORD_LOGIN"]);
    expect(fields({ ...SSO, SVC_PASSWORD_LOGIN: "false" })).toEqual([]);
  });
});

describe("OneTimeStore", () => {
  it("gives a value once, never after its time, and keeps at most its maximum", () => {
    let now = 0;
    const store = new OneTimeStore<string>({ ttlMs: 1000, max: 2 }, () => now);
    const a = store.put("a");
    expect(store.take(a)).toBe("a");
    expect(store.take(a)).toBeUndefined();
    const b = store.put("b");
    now = 1000;
    expect(store.take(b)).toBeUndefined();
    const [c, d, e] = [store.put("c"), store.put("d"), store.put("e")];
    expect(store.size).toBe(2);
    expect([store.take(c), store.take(d), store.take(e)]).toEqual([undefined, "d", "e"]);
    expect(store.put("f", "chosen")).toBe("chosen");
    expect(store.take("chosen")).toBe("f");
  });
});
