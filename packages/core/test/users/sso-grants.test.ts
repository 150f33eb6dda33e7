import { describe, expect, it } from "vitest";
import {
  grantsFromGroups,
  parseGroupGrants,
  ssoSignInDecision,
  type SsoSignInInput,
} from "../../src/index.ts";

describe("SVC_OIDC_GROUP_GRANTS", () => {
  const text = JSON.stringify([
    { group: "team-shop", grant: { role: "editor", clusters: ["staging"], namespaces: ["shop"] } },
    { group: "staff", grant: { role: "viewer" } },
  ]);

  it("maps the claim's groups to their grants", () => {
    const parsed = parseGroupGrants(text);
    if (!parsed.ok) throw new Error(parsed.message);
    expect(grantsFromGroups(["team-shop", "other"], parsed.value)).toEqual([
      { role: "editor", clusters: ["staging"], namespaces: ["shop"] },
    ]);
    expect(grantsFromGroups(["staff"], parsed.value)).toEqual([{ role: "viewer" }]);
    expect(grantsFromGroups([], parsed.value)).toEqual([]);
    expect(parseGroupGrants("")).toEqual({ ok: true, value: [] });
  });

  it("refuses what is not a list of {group, grant} with a valid grant, naming where", () => {
    expect(parseGroupGrants("{")).toMatchObject({
      ok: false,
      message: expect.stringContaining("JSON") as string,
    });
    expect(parseGroupGrants('{"group": "a"}')).toMatchObject({ ok: false });
    expect(parseGroupGrants('[{"group": "", "grant": {"role": "viewer"}}]')).toMatchObject({
      ok: false,
      message: expect.stringContaining("[0]") as string,
    });
    expect(parseGroupGrants('[{"group": "a", "grant": {"role": "owner"}}]')).toMatchObject({
      ok: false,
      message: expect.stringContaining("[0].grant.0.role") as string,
    });
    expect(parseGroupGrants('[{"group": "a", "grant": {"role": "viewer"}, "x": 1}]')).toMatchObject({
      ok: false,
    });
  });
});

describe("ssoSignInDecision with group grants", () => {
  const shop = { role: "editor" as const, clusters: ["staging"], namespaces: ["shop"] };
  const groupGrants = [{ group: "team-shop", grant: shop }];
  const identity = "https://idp jane-sub";
  const input = (groups: string[], over: Partial<SsoSignInInput> = {}): SsoSignInInput => ({
    claims: { preferred_username: "jane", groups },
    identity,
    usernameClaim: "preferred_username",
    roleClaim: "groups",
    mapping: { admin: [], editor: ["flags-editors"], viewer: [] },
    groupGrants,
    existing: undefined,
    adminCount: 1,
    ...over,
  });

  it("creates a grants-only user from a group that maps to a grant alone", () => {
    expect(ssoSignInDecision(input(["team-shop"]))).toEqual({
      outcome: "create",
      username: "jane",
      role: undefined,
      grants: [shop],
    });
  });

  it("sets the groups' grants at each sign-in, beside a mapped role", () => {
    const existing = { role: undefined, ssoIdentity: identity, grants: [shop] };
    expect(ssoSignInDecision(input(["flags-editors"], { existing }))).toEqual({
      outcome: "update",
      username: "jane",
      role: "editor",
      grants: [],
    });
  });

  it("refuses an identity that has neither a role nor a grant", () => {
    expect(ssoSignInDecision(input(["other"]))).toMatchObject({ outcome: "refuse", reason: "no-role" });
    const existing = { role: undefined, ssoIdentity: identity, grants: [shop] };
    expect(ssoSignInDecision(input(["other"], { existing }))).toMatchObject({ outcome: "refuse" });
  });

  it("keeps an admin's grants when no group grants are configured", () => {
    const existing = { role: undefined, ssoIdentity: identity, grants: [shop] };
    expect(ssoSignInDecision(input(["other"], { existing, groupGrants: [] }))).toEqual({
      outcome: "update",
      username: "jane",
      role: undefined,
    });
  });
});
