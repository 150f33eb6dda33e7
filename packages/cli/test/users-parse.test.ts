// `svc users` command lines read into requests, grants added and removed, and what is printed
// (all pure): a scope is refused as the API would refuse it, naming the option.
import { describe, expect, it } from "vitest";
import { addGrant, removeGrants, sameGrant } from "../src/users/grant-edits.ts";
import { parseUsersCommand } from "../src/users/parse.ts";
import { grantText, renderUser, renderUsers } from "../src/users/render.ts";

const run = (args: string[]) => {
  const parsed = parseUsersCommand(args);
  if (parsed.kind !== "run") throw new Error(JSON.stringify(parsed));
  return parsed.request;
};
const problems = (args: string[]) => {
  const parsed = parseUsersCommand(args);
  return parsed.kind === "usage" ? parsed.errors : [];
};

describe("parseUsersCommand", () => {
  it("create without a scope is a global role; with one, role none and one grant", () => {
    expect(run(["create", "ana", "--role", "editor"])).toEqual({
      verb: "create",
      username: "ana",
      role: "editor",
      grants: [],
      passwordStdin: false,
    });
    expect(
      run(["create", "sam", "--role", "editor", "-c", "staging", "-n", "shop-*,shop", "--password-stdin"]),
    ).toEqual({
      verb: "create",
      username: "sam",
      role: "none",
      grants: [{ role: "editor", clusters: ["staging"], namespaces: ["shop-*", "shop"] }],
      passwordStdin: true,
    });
  });

  it("grant reads repeated and comma-separated scopes and labels", () => {
    expect(
      run([
        "grant",
        "sam",
        "--role",
        "viewer",
        "--cluster-label",
        "env=prod",
        "--cluster-label",
        "team=shop",
        "-n",
        "a",
        "-n",
        "b",
      ]),
    ).toEqual({
      verb: "grant",
      username: "sam",
      grant: { role: "viewer", clusterLabels: { env: "prod", team: "shop" }, namespaces: ["a", "b"] },
    });
  });

  it.each([
    [["grant", "sam", "--role", "viewer"], "", /needs a scope/],
    [["grant", "sam", "-n", "shop"], "--role", /is required/],
    [["grant", "sam", "--role", "viewer", "-n", "Shop_1"], "--namespace", /namespace/],
    [["grant", "sam", "--role", "viewer", "-c", "Prod"], "--cluster", /./],
    [["grant", "sam", "--role", "viewer", "--cluster-label", "env"], "--cluster-label", /k=v/],
    [["grant", "sam", "--role", "owner", "-n", "a"], "--role", /must be one of/],
    [["revoke", "sam"], "", /say which grant/],
    [["revoke", "sam", "--all", "--index", "1"], "", /say which grant/],
    [["revoke", "sam", "--index", "0"], "--index", /number/],
    [["set", "sam"], "", /nothing to set/],
    [["get"], "USER", /required/],
  ] as const)("%j → %s", (args, field, message) => {
    const errors = problems([...args]);
    expect(errors.find((e) => e.field === field)?.message).toMatch(message);
  });

  it("revoke by scope, by number or all; set a role or a password", () => {
    expect(run(["revoke", "sam", "--role", "editor", "-n", "shop"])).toMatchObject({
      choice: { kind: "grant", grant: { role: "editor", namespaces: ["shop"] } },
    });
    expect(run(["revoke", "sam", "--index", "2"])).toMatchObject({ choice: { kind: "index", index: 2 } });
    expect(run(["revoke", "sam", "--all"])).toMatchObject({ choice: { kind: "all" } });
    expect(run(["set", "sam", "--role", "none"])).toEqual({ verb: "set", username: "sam", role: "none" });
    expect(run(["set", "sam", "--password-stdin"])).toEqual({
      verb: "set",
      username: "sam",
      password: "stdin",
    });
  });

  it("answers --help per verb and lists the verbs", () => {
    const help = parseUsersCommand(["grant", "--help"]);
    expect(help.kind === "help" && help.text).toMatch(/^usage: svc users grant USER --role ROLE SCOPE/);
    const usage = parseUsersCommand(["--help"]);
    expect(usage.kind === "help" && usage.text).toMatch(/revoke +remove a user's grant/);
    expect(parseUsersCommand(["promote"])).toMatchObject({
      kind: "usage",
      errors: [{ message: 'unknown verb "promote"' }],
    });
  });
});

describe("grant edits", () => {
  const shop = { role: "editor" as const, clusters: ["a", "b"], namespaces: ["shop"] };
  it("the same grant whatever the order of its lists; not added twice", () => {
    expect(sameGrant(shop, { role: "editor", namespaces: ["shop"], clusters: ["b", "a"] })).toBe(true);
    expect(sameGrant(shop, { ...shop, role: "viewer" })).toBe(false);
    expect(sameGrant(shop, { role: "editor", namespaces: ["shop"] })).toBe(false);
    expect(addGrant([shop], { ...shop, clusters: ["b", "a"] })).toBeUndefined();
    expect(addGrant([shop], { role: "viewer" })).toEqual([shop, { role: "viewer" }]);
  });

  it("removes the grant named, the Nth, or all; undefined when nothing matches", () => {
    const viewer = { role: "viewer" as const, clusterLabels: { env: "prod" } };
    expect(removeGrants([shop, viewer], { kind: "grant", grant: { ...shop } })).toEqual([viewer]);
    expect(removeGrants([shop, viewer], { kind: "index", index: 2 })).toEqual([shop]);
    expect(removeGrants([shop, viewer], { kind: "index", index: 3 })).toBeUndefined();
    expect(removeGrants([shop], { kind: "grant", grant: { role: "admin" } })).toBeUndefined();
    expect(removeGrants([shop, viewer], { kind: "all" })).toEqual([]);
    expect(removeGrants([], { kind: "all" })).toBeUndefined();
  });
});

describe("render", () => {
  const sam = {
    username: "sam",
    role: "none",
    createdAt: "2026-11-28T10:00:00.000Z",
    grants: [
      { role: "editor" as const, clusters: ["staging"], namespaces: ["shop-*"] },
      { role: "viewer" as const, clusterLabels: { env: "prod" } },
    ],
  };
  it("a grant in one word: role@clusters[labels]/namespaces, * for all", () => {
    expect(sam.grants.map(grantText)).toEqual(["editor@staging/shop-*", "viewer@[env=prod]/*"]);
    expect(grantText({ role: "admin" })).toBe("admin@*/*");
  });

  it("list: one line per user; get: the grants numbered as revoke --index takes them", () => {
    expect(
      renderUsers([sam, { username: "admin", role: "admin", createdAt: "t", grants: [] }], "table"),
    ).toBe(
      [
        "USERNAME  ROLE   GRANTS                                     CREATED",
        "sam       none   editor@staging/shop-* viewer@[env=prod]/*  2026-11-28T10:00:00.000Z",
        "admin     admin  -                                          t",
        "",
      ].join("\n"),
    );
    expect(renderUser(sam, "table")).toBe(
      [
        "user sam: global role none, created 2026-11-28T10:00:00.000Z",
        "#  ROLE    CLUSTERS  CLUSTER-LABELS  NAMESPACES",
        "1  editor  staging   *               shop-*",
        "2  viewer  *         env=prod        *",
        "",
      ].join("\n"),
    );
    expect(JSON.parse(renderUser(sam, "json"))).toEqual(sam);
  });
});
