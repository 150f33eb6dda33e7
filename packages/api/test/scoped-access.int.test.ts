// The authorization suite (issue 37): every route of core's access table × every role, held
// globally and as a grant (cluster local, namespace "in"), in scope and out of scope (namespace
// "out", cluster "other"), against the real API on a real kube-apiserver. A new route without a
// case in support/scope-cases.ts fails it; what each caller must get follows from the table.
import { readFile } from "node:fs/promises";
import { AppsV1Api } from "@kubernetes/client-node";
import { neededRole, ROUTE_RULES, type Role, type RouteRule, type ScopeRule } from "@svc/core";
import { beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { eventually, testNamespace } from "../../../test/support/kube.ts";
import { validFlagSpec } from "../../../test/support/flag-cases.ts";
import { startClusterApi, type ClusterApi } from "./support/cluster-api.ts";
import { ADMIN_PASSWORD } from "./support/harness.ts";
import { SCOPE_CASES, type Bed, type Target } from "./support/scope-cases.ts";

const RANK: Record<Role, number> = { viewer: 1, editor: 2, admin: 3 };
/** Global callers hold their role everywhere; scoped ones only in cluster local, namespace in. */
const CALLERS = ["g-admin", "g-editor", "g-viewer", "s-admin", "s-editor", "s-viewer"] as const;
type Caller = (typeof CALLERS)[number];
const roleOf = (caller: Caller): Role => caller.slice(2) as Role;
const isGlobal = (caller: Caller) => caller.startsWith("g-");

let env: ClusterApi;
let nsIn: string;
let nsOut: string;
let kubeconfig: string;
let planner: string;
const tokens = {} as Record<Caller, string>;
const usernames = {} as Record<Caller, string>;

/** The oracle, independent of the code under test: the role a caller holds for a target. */
function held(caller: Caller, scope: ScopeRule, t: Target): Role | undefined {
  if (isGlobal(caller)) return roleOf(caller);
  if (scope === "global") return undefined;
  if (scope === "session" || scope === "draft") return roleOf(caller);
  return t === "in" ? roleOf(caller) : undefined;
}
const LISTS: readonly ScopeRule[] = [
  "flags-list",
  "plans-list",
  "clusters-list",
  "cluster-filtered",
  "audit",
  "users-list",
];

async function admin(method: string, path: string, body?: unknown): Promise<unknown> {
  const reply = await env.api.call(method, path, { token: tokens["g-admin"], body });
  if (reply.status >= 300) throw new Error(`setup ${method} ${path}: ${reply.status} ${reply.text}`);
  return reply.json;
}

const registration = (id: string) => ({
  id,
  displayName: id,
  apiServer: env.kc.getCurrentCluster()?.server,
  authMethod: "kubeconfig",
  kubeconfig,
  labels: { env: id },
  namespaces: [nsIn, nsOut],
});

const bed: Bed = {
  ns: (t) => (t === "in" ? nsIn : nsOut),
  cluster: (t) => (t === "in" ? "local" : "other"),
  createFlag: async (namespace, name) => {
    await admin("POST", "/api/v1/flags", { ...validFlagSpec, name, namespace, clusterId: "local" });
  },
  createPlan: async (namespace, flag) => {
    const body = {
      flag: { namespace, name: flag },
      change: { defaultValue: "false" },
      waves: [{ clusters: ["local"] }],
    };
    // By another admin than g-admin, who may then approve it (an author may not).
    const reply = await env.api.call("POST", "/api/v1/rollouts", { token: planner, body });
    if (reply.status !== 201) throw new Error(`setup plan: ${reply.status} ${reply.text}`);
    return (reply.json as { name: string }).name;
  },
  createUser: (username) => env.api.createUser(tokens["g-admin"], username, "viewer"),
  registerCluster: async (id) => {
    await admin("POST", "/api/v1/clusters", registration(id));
  },
  registration,
  freshToken: () => Promise.resolve(""),
};

async function workload(namespace: string): Promise<void> {
  const labels = { app: "web" };
  await env.kc.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name: "web", labels },
      spec: {
        replicas: 0,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: "main", image: "example/web:1" }] } },
      },
    },
  });
}

beforeAll(async () => {
  env = await startClusterApi("scoped");
  nsIn = await testNamespace(env.kc, "scoped-in");
  nsOut = await testNamespace(env.kc, "scoped-out");
  kubeconfig = await readFile(inject("kubeconfigPath"), "utf8");
  tokens["g-admin"] = env.tokens.admin;
  usernames["g-admin"] = "admin";
  for (const caller of CALLERS.filter((c) => c !== "g-admin")) {
    const role = roleOf(caller);
    const grants = isGlobal(caller) ? [] : [{ role, clusters: ["local"], namespaces: [nsIn] }];
    const body = {
      username: caller,
      password: `${caller}-password`,
      role: isGlobal(caller) ? role : "none",
      grants,
    };
    await admin("POST", "/api/v1/users", body);
    tokens[caller] = await env.api.login(caller, `${caller}-password`);
    usernames[caller] = caller;
  }
  await env.api.createUser(tokens["g-admin"], "planner", "admin");
  planner = await env.api.login("planner", "planner-password");
  await bed.registerCluster("other");
  await Promise.all([workload(nsIn), workload(nsOut)]);
  // Something of each namespace in every list: a flag (and its audit event), a plan.
  for (const t of ["in", "out"] as const) {
    await bed.createFlag(bed.ns(t), `listed-${t}`);
    await bed.createPlan(bed.ns(t), `listed-${t}`);
  }
  await eventually(
    () => env.api.call("GET", "/api/v1/clusters/local/workloads", { token: tokens["g-admin"] }),
    (reply) => Array.isArray(reply.json) && reply.json.length >= 2,
    "both workloads in the API",
  );
  await eventually(
    () => Promise.resolve(env.registry.get("other")?.health().state),
    (state) => state === "ready",
    "cluster other ready",
  );
}, 120_000);

it("has a case for every route of the access table, and no case for a route it lacks", () => {
  expect(Object.keys(SCOPE_CASES).sort()).toEqual(Object.keys(ROUTE_RULES).sort());
});

function slugOf(key: string, caller: Caller, t: Target): string {
  const route = key
    .replace(/[^a-z]+/gi, "-")
    .toLowerCase()
    .replace(/^-|-$/g, "");
  return `${route.slice(-36)}-${caller}-${t}`.replace(/^-+/, "").slice(-60).replace(/^-+/, "");
}

const rows = Object.entries(ROUTE_RULES).filter(
  (entry): entry is [string, RouteRule & { access: readonly Role[] }] => entry[1].access !== "public",
);

describe.each(rows.map(([key, rule]) => ({ key, rule })))("$key", ({ key, rule }) => {
  const testCase = SCOPE_CASES[key];
  const scope = testCase?.scope ?? rule.scope;
  const needed = testCase?.needed ?? neededRole(rule);
  const targets: Target[] =
    scope === "global" || scope === "session" || scope === "draft" ? ["in"] : ["in", "out"];

  it.each(CALLERS.flatMap((caller) => targets.map((t) => ({ caller, t }))))(
    "$caller, $t",
    async ({ caller, t }) => {
      if (testCase === undefined) throw new Error(`no case for ${key}`);
      const role = held(caller, scope, t);
      const allowed = role !== undefined && RANK[role] >= RANK[needed];
      const slug = slugOf(key, caller, t);
      const fresh =
        key === "POST /api/v1/auth/logout"
          ? await env.api.login(
              usernames[caller],
              caller === "g-admin" ? ADMIN_PASSWORD : `${caller}-password`,
            )
          : "";
      const request = await testCase.request(
        { ...bed, freshToken: () => Promise.resolve(fresh) },
        t,
        slug,
        allowed,
      );
      const reply = await env.api.call(request.method, request.path, {
        token: request.token ?? tokens[caller],
        ...(request.body === undefined ? {} : { body: request.body }),
      });
      if (LISTS.includes(scope)) {
        expect(reply.status, reply.text).toBe(200);
        expect(
          testCase.shows?.(reply.json, bed, t, usernames[caller]),
          `${key} shows ${t} to ${caller}`,
        ).toBe(allowed);
        return;
      }
      if (!allowed) {
        expect(reply.status, reply.text).toBe(403);
        const error = (reply.json as { error?: unknown }).error;
        expect(typeof error === "string" && error.length > 0, reply.text).toBe(true);
        // A refusal by scope names it (the cluster it needed the role in).
        if (!isGlobal(caller) && scope !== "global") expect(error).toMatch(/cluster (local|other)/);
        return;
      }
      if (testCase.allowed === "any") {
        expect([401, 403].includes(reply.status) || reply.status >= 500, reply.text).toBe(false);
      } else {
        expect(reply.status, reply.text).toBe(testCase.allowed);
      }
    },
  );
});
