import { describe, expect, it } from "vitest";
import {
  GRANTS_MAX,
  highestRole,
  namespaceMatches,
  roleAtLeast,
  roleIn,
  scopeRefusal,
  validateGrants,
  type Principal,
} from "../../src/index.ts";

const staging = { clusterId: "staging", clusterLabels: { env: "staging", team: "shop" } };
const prod = { clusterId: "prod", clusterLabels: { env: "prod" } };

function user(role: Principal["role"], grants: Principal["grants"]): Principal {
  return { username: "u", role, grants };
}

describe("roleAtLeast", () => {
  it("orders admin > editor > viewer, and no role is below all", () => {
    expect(roleAtLeast("admin", "editor")).toBe(true);
    expect(roleAtLeast("editor", "editor")).toBe(true);
    expect(roleAtLeast("viewer", "editor")).toBe(false);
    expect(roleAtLeast("editor", "admin")).toBe(false);
    expect(roleAtLeast(undefined, "viewer")).toBe(false);
  });
});

describe("namespaceMatches", () => {
  it("matches names exactly and '*' as any run of characters", () => {
    expect(namespaceMatches("shop", "shop")).toBe(true);
    expect(namespaceMatches("shop", "shop-eu")).toBe(false);
    expect(namespaceMatches("shop-*", "shop-eu")).toBe(true);
    expect(namespaceMatches("shop-*", "shop-")).toBe(true);
    expect(namespaceMatches("shop-*", "shop")).toBe(false);
    expect(namespaceMatches("*-eu", "shop-eu")).toBe(true);
    expect(namespaceMatches("a*b*c", "abc")).toBe(true);
    expect(namespaceMatches("a*b*c", "axxbyyc")).toBe(true);
    expect(namespaceMatches("a*b*c", "acb")).toBe(false);
    expect(namespaceMatches("ab*ba", "aba")).toBe(false);
    expect(namespaceMatches("*", "anything")).toBe(true);
  });

  it("stays linear on a pattern of many stars", () => {
    const pattern = "a*".repeat(31) + "b";
    const started = performance.now();
    expect(namespaceMatches(pattern, "a".repeat(63))).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe("roleIn", () => {
  const shopEditor = user(undefined, [{ role: "editor", clusters: ["staging"], namespaces: ["shop"] }]);

  it("gives a grant's role only in its clusters and namespaces", () => {
    expect(roleIn(shopEditor, { ...staging, namespace: "shop" })).toBe("editor");
    expect(roleIn(shopEditor, { ...staging, namespace: "payments" })).toBeUndefined();
    expect(roleIn(shopEditor, { ...prod, namespace: "shop" })).toBeUndefined();
  });

  it("matches a grant to a cluster with no namespace given", () => {
    expect(roleIn(shopEditor, staging)).toBe("editor");
    expect(roleIn(shopEditor, prod)).toBeUndefined();
  });

  it("matches clusters by every label of the grant", () => {
    const u = user(undefined, [{ role: "viewer", clusterLabels: { env: "staging", team: "shop" } }]);
    expect(roleIn(u, { ...staging, namespace: "x" })).toBe("viewer");
    const other = user(undefined, [{ role: "viewer", clusterLabels: { env: "staging", team: "pay" } }]);
    expect(roleIn(other, staging)).toBeUndefined();
    const both = user(undefined, [{ role: "viewer", clusters: ["prod"], clusterLabels: { env: "staging" } }]);
    expect(roleIn(both, staging)).toBeUndefined();
  });

  it("is the highest of the global role and every matching grant", () => {
    const u = user("viewer", [
      { role: "editor", clusters: ["staging"] },
      { role: "admin", clusters: ["staging"], namespaces: ["ops-*"] },
    ]);
    expect(roleIn(u, { ...prod, namespace: "shop" })).toBe("viewer");
    expect(roleIn(u, { ...staging, namespace: "shop" })).toBe("editor");
    expect(roleIn(u, { ...staging, namespace: "ops-a" })).toBe("admin");
    expect(roleIn(user("admin", [{ role: "viewer" }]), prod)).toBe("admin");
    expect(highestRole(u)).toBe("admin");
    expect(highestRole(user(undefined, []))).toBeUndefined();
  });
});

describe("scopeRefusal", () => {
  it("names what the user holds and what was needed", () => {
    const u = {
      username: "ed",
      role: undefined,
      grants: [{ role: "editor" as const, clusters: ["staging"], namespaces: ["shop"] }],
    };
    expect(scopeRefusal(u, { ...staging, namespace: "shop" }, "editor")).toBeUndefined();
    expect(scopeRefusal(u, { ...prod, namespace: "shop" }, "editor")).toBe(
      "ed has role editor in cluster staging, namespace shop; needed editor in cluster prod, namespace shop",
    );
  });
});

describe("validateGrants", () => {
  it("accepts a team's grants", () => {
    const grants = [
      { role: "editor", clusters: ["staging"], clusterLabels: { env: "staging" }, namespaces: ["shop-*"] },
    ];
    expect(validateGrants(grants)).toEqual({ ok: true, value: grants });
    expect(validateGrants([])).toEqual({ ok: true, value: [] });
  });

  it("refuses bad roles, ids, patterns, labels, unknown fields and empty lists, naming the field", () => {
    const cases: [unknown, RegExp][] = [
      [[{ role: "owner" }], /grants\.0\.role/],
      [[{ role: "editor", clusters: ["Prod"] }], /grants\.0\.clusters\.0: must be a DNS-1123 label/],
      [[{ role: "editor", namespaces: ["shop/*"] }], /grants\.0\.namespaces\.0/],
      [[{ role: "editor", namespaces: ["x".repeat(64)] }], /grants\.0\.namespaces\.0/],
      [[{ role: "editor", clusterLabels: { env: "a b" } }], /grants\.0\.clusterLabels/],
      [[{ role: "editor", project: "x" }], /grants\.0\.project: is not a known field/],
      [[{ role: "editor", clusters: [] }], /grants\[0\]\.clusters: must name at least one/],
      [[{ role: "editor", namespaces: ["a", "a"] }], /grants\[0\]\.namespaces: lists a value twice/],
      [
        Array.from({ length: GRANTS_MAX + 1 }, () => ({ role: "viewer" })),
        /grants: must have at most 50 items/,
      ],
      [{ role: "viewer" }, /grants: must be a array/],
    ];
    for (const [input, message] of cases) {
      const result = validateGrants(input);
      expect(result.ok, JSON.stringify(input).slice(0, 80)).toBe(false);
      if (!result.ok)
        expect(result.errors.map((e) => `${e.field}: ${e.message}`).join("; ")).toMatch(message);
    }
  });
});
