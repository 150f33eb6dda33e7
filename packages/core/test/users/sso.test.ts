import { describe, expect, it } from "vitest";
import {
  emailVerified,
  passwordChangeRefusal,
  passwordLoginRefusal,
  roleFromClaim,
  ssoSignInDecision,
  ssoUsername,
  usernameFromClaim,
  type SsoSignInInput,
} from "../../src/index.ts";

const mapping = { admin: ["ops"], editor: ["flags-editors"], viewer: ["staff", "flags-viewers"] };

describe("roleFromClaim", () => {
  it("gives the highest role any value maps to, whatever their order", () => {
    expect(roleFromClaim(["staff", "flags-editors"], mapping)).toBe("editor");
    expect(roleFromClaim(["flags-editors", "staff", "ops"], mapping)).toBe("admin");
    expect(roleFromClaim("staff", mapping)).toBe("viewer");
  });

  it("gives none for unmapped values, a missing claim or values that are not strings", () => {
    expect(roleFromClaim(["other"], mapping)).toBeUndefined();
    expect(roleFromClaim(undefined, mapping)).toBeUndefined();
    expect(roleFromClaim([{ name: "ops" }, 7], mapping)).toBeUndefined();
    expect(roleFromClaim("OPS", mapping)).toBeUndefined();
  });
});

describe("usernameFromClaim", () => {
  it("keeps a valid name and fits others to the users table's rule", () => {
    expect(usernameFromClaim("jane")).toBe("jane");
    expect(usernameFromClaim("jane@example.com")).toBe("jane-example.com");
    expect(usernameFromClaim("  Jane Doe ")).toBe("Jane-Doe-");
    expect(usernameFromClaim("_svc.bot")).toBe("svc.bot");
    expect(usernameFromClaim("ｊａｎｅ")).toBe("jane");
    expect(usernameFromClaim("x".repeat(100))).toBe("x".repeat(63));
  });

  it("gives none when nothing usable is left or the claim is not text", () => {
    for (const value of ["", "@@@", "---", "日本", 42, undefined, ["jane"]]) {
      expect(usernameFromClaim(value), String(value)).toBeUndefined();
    }
  });
});

describe("ssoSignInDecision", () => {
  const input = (over: Partial<SsoSignInInput> = {}): SsoSignInInput => ({
    claims: { preferred_username: "jane", groups: ["flags-editors"] },
    identity: "https://idp jane-sub",
    usernameClaim: "preferred_username",
    roleClaim: "groups",
    mapping,
    existing: undefined,
    adminCount: 1,
    ...over,
  });

  it("creates a new user, and updates the same identity's user to its current role", () => {
    expect(ssoSignInDecision(input())).toEqual({ outcome: "create", username: "jane", role: "editor" });
    const existing = { role: "viewer" as const, ssoIdentity: "https://idp jane-sub" };
    expect(ssoSignInDecision(input({ existing }))).toEqual({
      outcome: "update",
      username: "jane",
      role: "editor",
    });
  });

  it("refuses, saying why: no username, no role, a password user, another identity, the last admin", () => {
    const reason = (over: Partial<SsoSignInInput>) => {
      const decision = ssoSignInDecision(input(over));
      return decision.outcome === "refuse" ? decision.reason : decision.outcome;
    };
    expect(reason({ claims: { groups: ["flags-editors"] } })).toBe("no-username");
    expect(reason({ claims: { preferred_username: "jane", groups: ["other"] } })).toBe("no-role");
    expect(reason({ existing: { role: "editor", ssoIdentity: undefined } })).toBe("password-user");
    expect(reason({ claims: { preferred_username: "admin", groups: ["ops"] } })).toBe("password-user");
    expect(reason({ existing: { role: "editor", ssoIdentity: "https://idp other-sub" } })).toBe(
      "other-identity",
    );
    expect(reason({ existing: { role: "admin", ssoIdentity: "https://idp jane-sub" }, adminCount: 1 })).toBe(
      "last-admin",
    );
    expect(reason({ existing: { role: "admin", ssoIdentity: "https://idp jane-sub" }, adminCount: 2 })).toBe(
      "update",
    );
  });

  it("names the user in a refusal when the claims give one", () => {
    const decision = ssoSignInDecision(input({ claims: { preferred_username: "sam", groups: [] } }));
    expect(decision).toEqual({
      outcome: "refuse",
      reason: "no-role",
      username: "sam",
      message: "sam's groups claim maps to no role in svc",
    });
  });
});

describe("password login", () => {
  it("is refused for single sign-on users, and for everyone but admin when turned off", () => {
    expect(passwordLoginRefusal("pat", true, { ssoIdentity: undefined })).toBeUndefined();
    expect(passwordLoginRefusal("pat", true, undefined)).toBeUndefined();
    expect(passwordLoginRefusal("jane", true, { ssoIdentity: "i s" })).toMatch(
      /single sign-on, not a password/,
    );
    expect(passwordLoginRefusal("pat", false, undefined)).toMatch(/turned off/);
    expect(passwordLoginRefusal("admin", false, { ssoIdentity: undefined })).toBeUndefined();
  });

  it("cannot be given to a single sign-on user", () => {
    expect(passwordChangeRefusal("jane", true, "i s")?.status).toBe(400);
    expect(passwordChangeRefusal("jane", false, "i s")).toBeUndefined();
    expect(passwordChangeRefusal("pat", true, undefined)).toBeUndefined();
  });
});

describe("single sign-on hardening", () => {
  const input = (over: Partial<SsoSignInInput> = {}): SsoSignInInput => ({
    claims: { preferred_username: "jane", email: "jane@example.com", groups: ["flags-editors"] },
    identity: "https://idp jane-sub",
    usernameClaim: "preferred_username",
    roleClaim: "groups",
    mapping,
    existing: undefined,
    adminCount: 1,
    ...over,
  });

  it("takes a username from an e-mail address only when the provider verified it", () => {
    const claims = { email: "jane@example.com" };
    expect(ssoUsername(claims, "email")).toBeUndefined();
    expect(ssoUsername({ ...claims, email_verified: false }, "email")).toBeUndefined();
    expect(ssoUsername({ ...claims, email_verified: "yes" }, "email")).toBeUndefined();
    expect(ssoUsername({ ...claims, email_verified: true }, "email")).toBe("jane-example.com");
    expect(ssoUsername({ ...claims, email_verified: "true" }, "email")).toBe("jane-example.com");
    // Another claim is the provider's own name for the user: no address to verify.
    expect(ssoUsername({ preferred_username: "jane" }, "preferred_username")).toBe("jane");
    expect(emailVerified({ email_verified: true })).toBe(true);
    const refused = ssoSignInDecision(input({ usernameClaim: "email" }));
    expect(refused).toEqual({
      outcome: "refuse",
      reason: "no-username",
      username: undefined,
      message: "the identity provider has not verified the e-mail address svc takes the username from",
    });
  });

  it("keeps the stored role of the same identity when no group maps, and applies one that does", () => {
    const existing = { role: "admin" as const, ssoIdentity: "https://idp jane-sub" };
    const unmapped = { preferred_username: "jane", groups: ["staff-elsewhere"] };
    expect(ssoSignInDecision(input({ existing, claims: unmapped }))).toEqual({
      outcome: "update",
      username: "jane",
      role: "admin",
    });
    expect(ssoSignInDecision(input({ existing: { ...existing, role: "viewer" } }))).toMatchObject({
      role: "editor",
    });
    // A new user, or another identity's, gets nothing from a stored role.
    const reason = (over: Partial<SsoSignInInput>) => {
      const decision = ssoSignInDecision(input(over));
      return decision.outcome === "refuse" ? decision.reason : decision.outcome;
    };
    expect(reason({ claims: unmapped })).toBe("no-role");
    expect(reason({ claims: unmapped, existing: { ...existing, ssoIdentity: "https://idp other" } })).toBe(
      "no-role",
    );
    expect(reason({ claims: unmapped, existing: { ...existing, ssoIdentity: undefined } })).toBe("no-role");
  });
});
