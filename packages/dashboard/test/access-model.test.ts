// What the dashboard offers a signed-in user where: by the global role and the grants of
// /auth/me, the clusters' labels and the API's access table (core's roleIn and authorizeRoute).
import { describe, expect, it } from "vitest";
import { mayGlobally, mayIn, mayInEvery, maySomewhere, principalOf } from "../app/session/access-model.ts";
import { planScopes } from "../app/rollouts/rollout-model.ts";
import type { RolloutView } from "../app/rollouts/types.ts";

const TOGGLE = "POST /api/v1/flags/{namespace}/{name}/toggle";
const DELETE = "DELETE /api/v1/flags/{namespace}/{name}";
const CREATE = "POST /api/v1/flags";
const LABELS: Record<string, Record<string, string>> = {
  staging: { env: "staging" },
  prod: { env: "prod" },
};
const labelsOf = (id: string) => LABELS[id];

/** An editor of shop-* in staging and a viewer of every namespace in clusters labelled env=prod. */
const scoped = principalOf({
  username: "sam",
  role: "none",
  grants: [
    { role: "editor", clusters: ["staging"], namespaces: ["shop-*"] },
    { role: "viewer", clusterLabels: { env: "prod" } },
  ],
});

describe("principalOf", () => {
  it('reads role "none" as no global role, and an older server without grants as none', () => {
    expect(scoped.role).toBeUndefined();
    expect(principalOf({ username: "v", role: "viewer" })).toEqual({
      username: "v",
      role: "viewer",
      grants: [],
    });
  });
});

describe("mayIn", () => {
  it.each([
    [TOGGLE, "staging", "shop-web", true],
    [TOGGLE, "staging", "payments", false],
    [TOGGLE, "prod", "shop-web", false],
    [TOGGLE, "dev", "shop-web", false],
    // An editor never deletes (admins only), in scope or not.
    [DELETE, "staging", "shop-web", false],
    // Reading is allowed where any grant applies.
    ["GET /api/v1/flags/{namespace}/{name}", "prod", "anything", true],
    ["GET /api/v1/flags/{namespace}/{name}", "dev", "anything", false],
  ])("%s in %s/%s: %s", (route, clusterId, namespace, expected) => {
    expect(mayIn(scoped, route, { clusterId, namespace }, labelsOf)).toBe(expected);
  });

  it("a cluster whose labels are unknown matches no label grant", () => {
    const route = "GET /api/v1/flags/{namespace}/{name}";
    expect(mayIn(scoped, route, { clusterId: "prod", namespace: "a" }, () => undefined)).toBe(false);
  });

  it("without a namespace, a grant of the cluster allows (may create somewhere in it)", () => {
    expect(mayIn(scoped, CREATE, { clusterId: "staging" }, labelsOf)).toBe(true);
    expect(mayIn(scoped, CREATE, { clusterId: "prod" }, labelsOf)).toBe(false);
  });

  it("a global role applies everywhere, grants add to it", () => {
    const editor = principalOf({
      username: "e",
      role: "editor",
      grants: [{ role: "admin", namespaces: ["ops"] }],
    });
    expect(mayIn(editor, TOGGLE, { clusterId: "dev", namespace: "x" }, labelsOf)).toBe(true);
    expect(mayIn(editor, DELETE, { clusterId: "dev", namespace: "x" }, labelsOf)).toBe(false);
    expect(mayIn(editor, DELETE, { clusterId: "dev", namespace: "ops" }, labelsOf)).toBe(true);
  });
});

describe("mayInEvery, maySomewhere, mayGlobally", () => {
  it("a plan's action needs the role in every cluster; none listed allows nothing", () => {
    const route = "POST /api/v1/rollouts/{name}/pause";
    const staging = { clusterId: "staging", namespace: "shop-web" };
    expect(mayInEvery(scoped, route, [staging], labelsOf)).toBe(true);
    expect(mayInEvery(scoped, route, [staging, { clusterId: "prod", namespace: "shop-web" }], labelsOf)).toBe(
      false,
    );
    expect(mayInEvery(scoped, route, [], labelsOf)).toBe(false);
  });

  it("New flag is offered for a grant; users and webhooks only to a global admin", () => {
    expect(maySomewhere(scoped, CREATE)).toBe(true);
    expect(maySomewhere(principalOf({ username: "v", role: "viewer" }), CREATE)).toBe(false);
    const scopedAdmin = principalOf({
      username: "a",
      role: "none",
      grants: [{ role: "admin", clusters: ["dev"] }],
    });
    expect(mayGlobally(scopedAdmin, "POST /api/v1/users")).toBe(false);
    expect(mayGlobally(scopedAdmin, "GET /api/v1/webhooks")).toBe(false);
    expect(mayGlobally(principalOf({ username: "admin", role: "admin" }), "POST /api/v1/users")).toBe(true);
  });
});

describe("planScopes", () => {
  const plan = (waves: RolloutView["spec"]["waves"], status: RolloutView["status"] = {}) => ({
    spec: { flag: { namespace: "shop-web", name: "checkout" }, change: { defaultValue: "true" }, waves },
    status,
  });
  const clusters = Object.entries(LABELS).map(([id, labels]) => ({ id, labels }));

  it("names the waves' clusters, by id and by the listed clusters their selectors match", () => {
    const scopes = planScopes(
      plan([{ clusters: ["staging"] }, { clusterSelector: { matchLabels: { env: "prod" } } }]),
      clusters,
    );
    expect(scopes).toEqual([
      { clusterId: "staging", namespace: "shop-web" },
      { clusterId: "prod", namespace: "shop-web" },
    ]);
  });

  it("adds the clusters the operator resolved", () => {
    const status = {
      waves: [{ phase: "Pending" as const, clusters: [{ id: "eu-1", phase: "Pending" as const }] }],
    };
    const scopes = planScopes(
      plan([{ clusterSelector: { matchLabels: { region: "eu" } } }], status),
      clusters,
    );
    expect(scopes.map((s) => s.clusterId)).toEqual(["eu-1"]);
  });
});
