// SPEC.md's role table for the flag, cluster and workload routes: every endpoint × every role,
// and no token at all, on a real kube-apiserver.
import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { testNamespace } from "../../../test/support/kube.ts";
import { validFlagSpec } from "../../../test/support/flag-cases.ts";
import { startClusterApi, ROLES, type ClusterApi, type TestRole } from "./support/cluster-api.ts";

let env: ClusterApi;
let ns: string;
let kubeconfig: string;

beforeAll(async () => {
  env = await startClusterApi("access");
  ns = await testNamespace(env.kc, "access");
  kubeconfig = await readFile(inject("kubeconfigPath"), "utf8");
});

type Caller = TestRole | "none";
const CALLERS: Caller[] = [...ROLES, "none"];

interface Row {
  method: string;
  /** The path for one caller; `setup` makes what it acts on first (as admin). */
  path: (caller: Caller) => string;
  body?: (caller: Caller) => unknown;
  setup?: (caller: Caller) => Promise<void>;
  expected: Record<Caller, number>;
}

const flagName = (caller: Caller, what: string) => `${what}-${caller}`;
const ok = (status: number) => ({ admin: status, editor: status, viewer: status, none: 401 });

async function createFlag(name: string): Promise<void> {
  const reply = await env.api.call("POST", "/api/v1/flags", {
    token: env.tokens.admin,
    body: { name, namespace: ns, clusterId: "local", ...validFlagSpec },
  });
  if (reply.status !== 201) throw new Error(`setup: ${reply.status} ${reply.text}`);
}

async function registerCluster(id: string): Promise<void> {
  const reply = await env.api.call("POST", "/api/v1/clusters", {
    token: env.tokens.admin,
    body: {
      id,
      displayName: id,
      apiServer: env.kc.getCurrentCluster()?.server,
      authMethod: "kubeconfig",
      kubeconfig,
    },
  });
  if (reply.status !== 201) throw new Error(`setup: ${reply.status} ${reply.text}`);
}

const rows: Row[] = [
  { method: "GET", path: () => "/api/v1/flags", expected: ok(200) },
  {
    method: "POST",
    path: () => "/api/v1/flags",
    body: (c) => ({ name: flagName(c, "new"), namespace: ns, clusterId: "local", ...validFlagSpec }),
    expected: { admin: 201, editor: 201, viewer: 403, none: 401 },
  },
  {
    method: "GET",
    path: (c) => `/api/v1/flags/${ns}/${flagName(c, "read")}?clusterId=local`,
    setup: (c) => createFlag(flagName(c, "read")),
    expected: ok(200),
  },
  {
    method: "PUT",
    path: (c) => `/api/v1/flags/${ns}/${flagName(c, "put")}?clusterId=local`,
    body: () => ({ ...validFlagSpec, description: "changed" }),
    setup: (c) => createFlag(flagName(c, "put")),
    expected: { admin: 200, editor: 200, viewer: 403, none: 401 },
  },
  {
    method: "POST",
    path: (c) => `/api/v1/flags/${ns}/${flagName(c, "toggle")}/toggle?clusterId=local`,
    setup: (c) => createFlag(flagName(c, "toggle")),
    expected: { admin: 200, editor: 200, viewer: 403, none: 401 },
  },
  {
    method: "DELETE",
    path: (c) => `/api/v1/flags/${ns}/${flagName(c, "delete")}?clusterId=local`,
    setup: (c) => createFlag(flagName(c, "delete")),
    expected: { admin: 200, editor: 403, viewer: 403, none: 401 },
  },
  { method: "GET", path: () => "/api/v1/clusters", expected: ok(200) },
  { method: "GET", path: () => "/api/v1/clusters/local", expected: ok(200) },
  {
    method: "POST",
    path: () => "/api/v1/clusters",
    body: (c) => ({
      id: `reg-${c}`,
      displayName: "again the test cluster",
      apiServer: env.kc.getCurrentCluster()?.server,
      authMethod: "kubeconfig",
      kubeconfig,
    }),
    expected: { admin: 201, editor: 403, viewer: 403, none: 401 },
  },
  {
    method: "DELETE",
    path: (c) => `/api/v1/clusters/del-${c}`,
    setup: (c) => registerCluster(`del-${c}`),
    expected: { admin: 200, editor: 403, viewer: 403, none: 401 },
  },
  { method: "GET", path: () => "/api/v1/clusters/local/namespaces", expected: ok(200) },
  { method: "GET", path: () => `/api/v1/clusters/local/workloads?namespace=${ns}`, expected: ok(200) },
];

describe.each(rows.map((row) => ({ ...row, title: row.path("admin") })))("$method $title", (row) => {
  it.each(CALLERS)("as %s", async (caller) => {
    await row.setup?.(caller);
    const token = caller === "none" ? undefined : env.tokens[caller];
    const reply = await env.api.call(row.method, row.path(caller), {
      ...(token === undefined ? {} : { token }),
      ...(row.body === undefined ? {} : { body: row.body(caller) }),
    });
    expect(reply.status, reply.text).toBe(row.expected[caller]);
    expect(reply.headers.get("content-type")).toContain("application/json");
  });
});
