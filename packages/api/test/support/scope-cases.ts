// The authorization suite's cases: one per row of core's ROUTE_RULES (a row without one fails
// the suite), each a request "in" the scoped users' grant (cluster local, namespace in) and
// one "out" of it (namespace out, or cluster other). What each caller must get is derived
// from the row's access and scope, not written here.
import type { Role, ScopeRule } from "@svc/core";
import { validFlagSpec } from "../../../../test/support/flag-cases.ts";

export type Target = "in" | "out";

export interface Request {
  method: string;
  path: string;
  body?: unknown;
  /** A token of the caller other than their usual one (a logout ends the token it is sent with). */
  token?: string;
}

/** What the cases need of the test: names, the two namespaces, and setups done as admin. */
export interface Bed {
  ns: (t: Target) => string;
  cluster: (t: Target) => string;
  createFlag: (namespace: string, name: string) => Promise<void>;
  createPlan: (namespace: string, flag: string) => Promise<string>;
  createUser: (username: string) => Promise<void>;
  registerCluster: (id: string) => Promise<void>;
  registration: (id: string) => unknown;
  freshToken: () => Promise<string>;
}

export interface Case {
  request: (bed: Bed, t: Target, slug: string, allowed: boolean) => Promise<Request> | Request;
  /** The status when allowed; "any": state-dependent, but neither 401, 403 nor a 5xx. */
  allowed?: number | "any";
  /** A list: whether the reply shows the target's object (a filtered list answers 200 to all). */
  shows?: (json: unknown, bed: Bed, t: Target, self: string) => boolean;
  /** The scope and role that decide this request, when not the row's (a PUT of another user's role). */
  scope?: ScopeRule;
  needed?: Role;
}

const PUBLIC: Case = { request: () => ({ method: "GET", path: "/healthz" }) };
const names = (json: unknown, field: string): unknown[] =>
  (Array.isArray(json) ? json : []).map((item) => (item as Record<string, unknown>)[field]);
const flagIn = (bed: Bed, t: Target, name: string) => `/api/v1/flags/${bed.ns(t)}/${name}?clusterId=local`;
const flagCase = (method: string, suffix: string, allowed: number, body?: unknown): Case => ({
  allowed,
  request: async (bed, t, slug) => {
    await bed.createFlag(bed.ns(t), slug);
    const path = flagIn(bed, t, slug).replace("?", `${suffix}?`);
    return { method, path, ...(body === undefined ? {} : { body }) };
  },
});
const planCase = (method: string, action: string): Case => ({
  allowed: "any",
  request: async (bed, t, slug) => {
    await bed.createFlag(bed.ns(t), slug);
    const plan = await bed.createPlan(bed.ns(t), slug);
    return { method, path: `/api/v1/rollouts/${plan}${action}`, ...(method === "POST" ? { body: {} } : {}) };
  },
});
const webhookCase = (method: string, suffix: string): Case => ({
  allowed: "any",
  request: () => ({
    method,
    path: `/api/v1/webhooks/no-such-hook${suffix}`,
    ...(method === "PUT" ? { body: { name: "x" } } : {}),
  }),
});
const file = { flags: { "file-flag": { state: "ENABLED", variants: { on: true }, defaultVariant: "on" } } };

export const SCOPE_CASES: Readonly<Record<string, Case>> = {
  "GET /healthz": PUBLIC,
  "GET /readyz": PUBLIC,
  "POST /api/v1/auth/login": PUBLIC,
  "GET /api/v1/auth/methods": PUBLIC,
  "GET /api/v1/auth/sso/login": PUBLIC,
  "GET /api/v1/auth/sso/callback": PUBLIC,
  "POST /api/v1/auth/sso/session": PUBLIC,
  "GET /api/v1/openapi.json": {
    allowed: 200,
    request: () => ({ method: "GET", path: "/api/v1/openapi.json" }),
  },
  "POST /api/v1/auth/logout": {
    allowed: 200,
    request: async (bed) => ({ method: "POST", path: "/api/v1/auth/logout", token: await bed.freshToken() }),
  },
  "GET /api/v1/auth/me": { allowed: 200, request: () => ({ method: "GET", path: "/api/v1/auth/me" }) },

  // "in": the caller's own account; "out": admin's, which a grants-only user does not see.
  "GET /api/v1/users": {
    request: () => ({ method: "GET", path: "/api/v1/users" }),
    shows: (json, _bed, t, self) => names(json, "username").includes(t === "in" ? self : "admin"),
  },
  "POST /api/v1/users": {
    allowed: 201,
    request: (_bed, _t, slug) => ({
      method: "POST",
      path: "/api/v1/users",
      body: { username: slug, password: "a-long-password", role: "viewer" },
    }),
  },
  "PUT /api/v1/users/{username}": {
    allowed: 200,
    scope: "global",
    needed: "admin",
    request: async (bed, _t, slug) => {
      await bed.createUser(slug);
      return { method: "PUT", path: `/api/v1/users/${slug}`, body: { role: "editor" } };
    },
  },
  "DELETE /api/v1/users/{username}": {
    allowed: 200,
    request: async (bed, _t, slug) => {
      await bed.createUser(slug);
      return { method: "DELETE", path: `/api/v1/users/${slug}` };
    },
  },
  // The setup's flag creations are events of cluster local in each namespace.
  "GET /api/v1/audit": {
    request: () => ({ method: "GET", path: "/api/v1/audit?limit=1000" }),
    shows: (json, bed, t) => names(json, "namespace").includes(bed.ns(t)),
  },

  "GET /api/v1/flags": {
    request: () => ({ method: "GET", path: "/api/v1/flags?clusterId=local" }),
    shows: (json, bed, t) => names(json, "namespace").includes(bed.ns(t)),
  },
  "POST /api/v1/flags": {
    allowed: 201,
    request: (bed, t, slug) => ({
      method: "POST",
      path: "/api/v1/flags",
      body: { ...validFlagSpec, name: slug, namespace: bed.ns(t), clusterId: "local" },
    }),
  },
  "GET /api/v1/flags/{namespace}/{name}": flagCase("GET", "", 200),
  "PUT /api/v1/flags/{namespace}/{name}": flagCase("PUT", "", 200, {
    ...validFlagSpec,
    description: "changed",
  }),
  "DELETE /api/v1/flags/{namespace}/{name}": flagCase("DELETE", "", 200),
  "POST /api/v1/flags/{namespace}/{name}/evaluate": flagCase("POST", "/evaluate", 200, { context: {} }),
  "POST /api/v1/flags/{namespace}/{name}/toggle": flagCase("POST", "/toggle", 200, {}),
  "POST /api/v1/flags/evaluate": {
    allowed: 200,
    request: () => ({
      method: "POST",
      path: "/api/v1/flags/evaluate",
      body: { flag: validFlagSpec, context: {} },
    }),
  },
  "POST /api/v1/flags/import": {
    allowed: 200,
    request: (bed, t) => ({
      method: "POST",
      path: `/api/v1/flags/import?clusterId=local&namespace=${bed.ns(t)}`,
      body: { delivery: validFlagSpec.delivery, file, dryRun: true },
    }),
  },
  "GET /api/v1/flags/export": {
    allowed: 200,
    request: (bed, t) => ({
      method: "GET",
      path: `/api/v1/flags/export?clusterId=local&namespace=${bed.ns(t)}`,
    }),
  },
  "POST /api/v1/flags/{namespace}/{name}/promote": flagCase("POST", "/promote", 201, {
    waves: [{ clusters: ["local"] }],
  }),

  "GET /api/v1/rollouts": {
    request: () => ({ method: "GET", path: "/api/v1/rollouts" }),
    shows: (json, bed, t) =>
      (Array.isArray(json) ? json : []).some(
        (plan) => (plan as { spec: { flag: { namespace: string } } }).spec.flag.namespace === bed.ns(t),
      ),
  },
  "POST /api/v1/rollouts": {
    allowed: 201,
    request: async (bed, t, slug) => {
      await bed.createFlag(bed.ns(t), slug);
      return {
        method: "POST",
        path: "/api/v1/rollouts",
        body: {
          flag: { namespace: bed.ns(t), name: slug },
          change: { defaultValue: "false" },
          waves: [{ clusters: ["local"] }],
        },
      };
    },
  },
  "GET /api/v1/rollouts/{name}": planCase("GET", ""),
  "DELETE /api/v1/rollouts/{name}": planCase("DELETE", ""),
  "POST /api/v1/rollouts/{name}/pause": planCase("POST", "/pause"),
  "POST /api/v1/rollouts/{name}/resume": planCase("POST", "/resume"),
  "POST /api/v1/rollouts/{name}/abort": planCase("POST", "/abort"),
  "POST /api/v1/rollouts/{name}/skip-bake": planCase("POST", "/skip-bake"),
  "POST /api/v1/rollouts/{name}/approve": planCase("POST", "/approve"),
  "POST /api/v1/rollouts/{name}/reject": planCase("POST", "/reject"),

  "GET /api/v1/clusters": {
    request: () => ({ method: "GET", path: "/api/v1/clusters" }),
    shows: (json, bed, t) => names(json, "id").includes(bed.cluster(t)),
  },
  "POST /api/v1/clusters": {
    allowed: 201,
    request: (bed, _t, slug) => ({ method: "POST", path: "/api/v1/clusters", body: bed.registration(slug) }),
  },
  "GET /api/v1/clusters/{id}": {
    allowed: 200,
    request: (bed, t) => ({ method: "GET", path: `/api/v1/clusters/${bed.cluster(t)}` }),
  },
  "DELETE /api/v1/clusters/{id}": {
    allowed: 200,
    request: async (bed, _t, slug, allowed) => {
      if (allowed) await bed.registerCluster(slug);
      return { method: "DELETE", path: `/api/v1/clusters/${slug}` };
    },
  },
  "GET /api/v1/clusters/{id}/namespaces": {
    request: () => ({ method: "GET", path: "/api/v1/clusters/local/namespaces" }),
    shows: (json, bed, t) => Array.isArray(json) && json.includes(bed.ns(t)),
  },
  "GET /api/v1/clusters/{id}/workloads": {
    request: () => ({ method: "GET", path: "/api/v1/clusters/local/workloads" }),
    shows: (json, bed, t) =>
      (Array.isArray(json) ? json : []).some((w) => (w as { namespace: string }).namespace === bed.ns(t)),
  },
  "GET /api/v1/clusters/{id}/workloads/{namespace}/{name}": {
    allowed: 200,
    request: (bed, t) => ({ method: "GET", path: `/api/v1/clusters/local/workloads/${bed.ns(t)}/web` }),
  },

  "GET /api/v1/webhooks": { allowed: 200, request: () => ({ method: "GET", path: "/api/v1/webhooks" }) },
  "POST /api/v1/webhooks": {
    allowed: "any",
    request: () => ({ method: "POST", path: "/api/v1/webhooks", body: { name: "x" } }),
  },
  "GET /api/v1/webhooks/{id}": webhookCase("GET", ""),
  "PUT /api/v1/webhooks/{id}": webhookCase("PUT", ""),
  "DELETE /api/v1/webhooks/{id}": webhookCase("DELETE", ""),
  "POST /api/v1/webhooks/{id}/test": webhookCase("POST", "/test"),
  "GET /api/v1/webhooks/{id}/deliveries": webhookCase("GET", "/deliveries"),
};
