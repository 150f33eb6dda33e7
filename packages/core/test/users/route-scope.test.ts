import { describe, expect, it } from "vitest";
import {
  auditVisibility,
  authorizePrincipal,
  authorizeScopes,
  handlerChecksScope,
  HANDLER_SCOPES,
  HOOK_SCOPES,
  mayRead,
  neededRole,
  ROUTE_RULES,
  type Principal,
} from "../../src/index.ts";

const staging = { clusterId: "staging", clusterLabels: { env: "staging" } };
const prod = { clusterId: "prod", clusterLabels: { env: "prod" } };
const shopEditor: Principal = {
  username: "ed",
  role: undefined,
  grants: [{ role: "editor", clusters: ["staging"], namespaces: ["shop"] }],
};

describe("the access table's scopes", () => {
  it("gives every route a scope the hook or its handler decides", () => {
    for (const [key, rule] of Object.entries(ROUTE_RULES)) {
      expect([...HOOK_SCOPES, ...HANDLER_SCOPES], key).toContain(rule.scope);
      if (rule.access === "public") expect(rule.scope, key).toBe("none");
    }
    expect(handlerChecksScope("flags-list")).toBe(true);
    expect(handlerChecksScope("flag")).toBe(false);
  });

  it("keeps users, cluster writes and webhooks to global roles", () => {
    for (const key of [
      "POST /api/v1/users",
      "DELETE /api/v1/users/{username}",
      "POST /api/v1/clusters",
      "DELETE /api/v1/clusters/{id}",
      "GET /api/v1/webhooks",
      "POST /api/v1/webhooks/{id}/test",
    ]) {
      expect(ROUTE_RULES[key]?.scope, key).toBe("global");
    }
  });

  it("needs a route's least role", () => {
    expect(neededRole({ scope: "flag", access: ["admin", "editor"] })).toBe("editor");
    expect(neededRole({ scope: "flag", access: ["admin", "editor", "viewer"] })).toBe("viewer");
    expect(neededRole({ scope: "global", access: ["admin"] })).toBe("admin");
  });
});

describe("authorizePrincipal", () => {
  it("lets a grant reach a scoped route, never a global one", () => {
    expect(authorizePrincipal(ROUTE_RULES, "PUT /api/v1/flags/{namespace}/{name}", shopEditor).outcome).toBe(
      "allow",
    );
    const admin: Principal = { username: "a", role: undefined, grants: [{ role: "admin" }] };
    const refused = authorizePrincipal(ROUTE_RULES, "POST /api/v1/users", admin);
    expect(refused).toEqual({
      outcome: "forbidden",
      message:
        "a has role admin in every cluster, every namespace; POST /api/v1/users needs admin as a global role",
    });
    expect(authorizePrincipal(ROUTE_RULES, "GET /api/v1/auth/me", shopEditor).outcome).toBe("allow");
    expect(authorizePrincipal(ROUTE_RULES, "GET /api/v1/auth/me", undefined).outcome).toBe("unauthenticated");
  });

  it("refuses a role the user holds nowhere", () => {
    const viewer: Principal = {
      username: "v",
      role: undefined,
      grants: [{ role: "viewer", clusters: ["prod"] }],
    };
    expect(authorizePrincipal(ROUTE_RULES, "POST /api/v1/flags", viewer).outcome).toBe("forbidden");
    expect(authorizePrincipal(ROUTE_RULES, "GET /api/v1/flags", viewer).outcome).toBe("allow");
  });
});

describe("authorizeScopes", () => {
  it("needs the role in every scope, naming what the user holds", () => {
    expect(authorizeScopes(shopEditor, "editor", [{ ...staging, namespace: "shop" }]).outcome).toBe("allow");
    expect(
      authorizeScopes(shopEditor, "editor", [
        { ...staging, namespace: "shop" },
        { ...prod, namespace: "shop" },
      ]),
    ).toEqual({
      outcome: "forbidden",
      message:
        "ed has role editor in cluster staging, namespace shop; needed editor in cluster prod, namespace shop",
    });
  });

  it("leaves a decision without any cluster to global roles", () => {
    expect(authorizeScopes(shopEditor, "editor", []).outcome).toBe("forbidden");
    expect(authorizeScopes({ username: "g", role: "editor", grants: [] }, "editor", []).outcome).toBe(
      "allow",
    );
  });

  it("reads a cluster with any grant in it", () => {
    expect(mayRead(shopEditor, staging)).toBe(true);
    expect(mayRead(shopEditor, prod)).toBe(false);
    expect(mayRead(shopEditor, { ...staging, namespace: "payments" })).toBe(false);
  });
});

describe("auditVisibility", () => {
  const clusters = [
    { id: "staging", labels: { env: "staging" } },
    { id: "prod", labels: { env: "prod" } },
  ];

  it("shows a global role everything", () => {
    expect(auditVisibility({ username: "v", role: "viewer", grants: [] }, clusters)).toEqual({ all: true });
  });

  it("shows a scoped user their clusters' namespaces", () => {
    const user: Principal = {
      username: "ed",
      role: undefined,
      grants: [
        { role: "editor", clusters: ["staging"], namespaces: ["shop"] },
        { role: "viewer", clusterLabels: { env: "staging" }, namespaces: ["shop-*", "shop"] },
        { role: "viewer", clusterLabels: { env: "prod" } },
      ],
    };
    expect(auditVisibility(user, clusters)).toEqual({
      all: false,
      username: "ed",
      clusters: [
        { id: "staging", namespaces: ["shop", "shop-*"] },
        { id: "prod", namespaces: undefined },
      ],
    });
  });
});
