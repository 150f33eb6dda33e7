import { describe, expect, it } from "vitest";
import { authorizeRoute, ROLES, ROUTE_RULES, routeKey, ruleFor, type Role } from "../../src/index.ts";

// SPEC.md's role table, one row per route: which roles get in.
const expected: Record<string, readonly Role[] | "public"> = {
  "GET /healthz": "public",
  "POST /api/v1/auth/login": "public",
  "POST /api/v1/auth/logout": ROLES,
  "GET /api/v1/auth/me": ROLES,
  "GET /api/v1/users": ROLES,
  "POST /api/v1/users": ["admin"],
  "PUT /api/v1/users/{username}": ROLES,
  "DELETE /api/v1/users/{username}": ["admin"],
  "GET /api/v1/audit": ROLES,
  "GET /api/v1/flags": ROLES,
  "POST /api/v1/flags": ["admin", "editor"],
  "GET /api/v1/flags/{namespace}/{name}": ROLES,
  "PUT /api/v1/flags/{namespace}/{name}": ["admin", "editor"],
  "DELETE /api/v1/flags/{namespace}/{name}": ["admin"],
  "POST /api/v1/flags/{namespace}/{name}/toggle": ["admin", "editor"],
  "GET /api/v1/clusters": ROLES,
  "POST /api/v1/clusters": ["admin"],
  "GET /api/v1/clusters/{id}": ROLES,
  "DELETE /api/v1/clusters/{id}": ["admin"],
};

describe("authorizeRoute", () => {
  it.each(Object.entries(expected))("follows SPEC.md's role table for %s", (key, allowed) => {
    for (const role of ROLES) {
      const decision = authorizeRoute(ROUTE_RULES, key, role).outcome;
      expect(decision).toBe(allowed === "public" || allowed.includes(role) ? "allow" : "forbidden");
    }
    const anonymous = authorizeRoute(ROUTE_RULES, key, undefined).outcome;
    expect(anonymous).toBe(allowed === "public" ? "allow" : "unauthenticated");
  });

  it("refuses a route that has no rule, whatever the role", () => {
    expect(authorizeRoute(ROUTE_RULES, "POST /api/v1/secret", "admin").outcome).toBe("unknown-route");
    expect(authorizeRoute(ROUTE_RULES, "POST /api/v1/secret", undefined).outcome).toBe("unknown-route");
  });

  it("names the role and the allowed roles when it forbids", () => {
    const decision = authorizeRoute(ROUTE_RULES, "POST /api/v1/users", "viewer");
    expect(decision).toEqual({
      outcome: "forbidden",
      message: "role viewer may not call POST /api/v1/users; allowed: admin",
    });
  });

  it("audits every mutating route and no reading one but the single sign-on callback, a login", () => {
    for (const [key, rule] of Object.entries(ROUTE_RULES)) {
      const signIn = key === "GET /api/v1/auth/sso/callback";
      expect(rule.audit !== undefined, key).toBe(
        signIn || (!key.startsWith("GET ") && rule.readOnly !== true),
      );
    }
  });

  it("gives HEAD its GET route's access, and no audit", () => {
    expect(ruleFor(ROUTE_RULES, "HEAD /api/v1/users")).toEqual({
      scope: "users-list",
      access: ROUTE_RULES["GET /api/v1/users"]?.access,
    });
    expect(authorizeRoute(ROUTE_RULES, "HEAD /healthz", undefined).outcome).toBe("allow");
    expect(authorizeRoute(ROUTE_RULES, "HEAD /api/v1/users", undefined).outcome).toBe("unauthenticated");
    expect(ruleFor(ROUTE_RULES, "HEAD /api/v1/users/{username}")).toBeUndefined();
  });

  it("turns Fastify's :params into the table's {params}", () => {
    expect(routeKey("put", "/api/v1/users/:username")).toBe("PUT /api/v1/users/{username}");
    expect(routeKey("GET", "/api/v1/flags/:namespace/:name")).toBe("GET /api/v1/flags/{namespace}/{name}");
  });
});
