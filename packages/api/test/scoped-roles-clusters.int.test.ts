// Scoped roles end to end on two real control planes (issue 37 acceptance): an editor of `shop`
// in `staging` creates and toggles there, is refused in `prod` and in `payments`, and lists only
// what is theirs; a grant by the clusters' labels, and one an OIDC group maps to (oidc-provider),
// work the same.
import { readFile } from "node:fs/promises";
import type { KubeConfig } from "@kubernetes/client-node";
import { ensureNamespace, installCrds } from "@svc/kube";
import { startLocalControlPlane, type LocalControlPlane } from "@svc/localkube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import {
  SSO_CLIENT,
  SSO_ROLES,
  startOidcProvider,
  type TestOidcProvider,
} from "../../../test/support/oidc-provider.ts";
import { freePort, SsoBrowser } from "./support/sso-browser.ts";
import { validFlagSpec } from "../../../test/support/flag-cases.ts";
import { startClusterApi, type ClusterApi } from "./support/cluster-api.ts";

let env: ClusterApi;
let provider: TestOidcProvider;
let prod: LocalControlPlane;
let shop: string;
let payments: string;

const admin = () => env.tokens.admin;

async function call(token: string, method: string, path: string, body?: unknown) {
  return env.api.call(method, path, { token, ...(body === undefined ? {} : { body }) });
}

async function register(
  id: string,
  kc: KubeConfig,
  kubeconfig: string,
  labels: Record<string, string>,
): Promise<void> {
  const reply = await call(admin(), "POST", "/api/v1/clusters", {
    id,
    displayName: id,
    apiServer: kc.getCurrentCluster()?.server,
    authMethod: "kubeconfig",
    kubeconfig,
    labels,
    namespaces: [shop, payments],
  });
  expect(reply.status, reply.text).toBe(201);
  await eventually(
    () => Promise.resolve(env.registry.get(id)?.health().state),
    (state) => state === "ready",
    `cluster ${id} ready`,
  );
}

async function createFlag(token: string, clusterId: string, namespace: string, name: string) {
  return call(token, "POST", "/api/v1/flags", { ...validFlagSpec, name, namespace, clusterId });
}

/** A user holding only `grants`, signed in. */
async function scopedUser(username: string, grants: unknown[]): Promise<string> {
  const reply = await call(admin(), "POST", "/api/v1/users", {
    username,
    password: `${username}-password`,
    role: "none",
    grants,
  });
  expect(reply.status, reply.text).toBe(201);
  return env.api.login(username, `${username}-password`);
}

beforeAll(async () => {
  const hub = testKubeConfig();
  shop = await testNamespace(hub, "shop");
  payments = await testNamespace(hub, "payments");
  const port = await freePort();
  const callback = `http://127.0.0.1:${port}/api/v1/auth/sso/callback`;
  provider = await startOidcProvider([callback]);
  env = await startClusterApi("scoped-e2e", {
    port,
    sso: {
      issuerUrl: provider.issuer,
      clientId: SSO_CLIENT.id,
      clientSecret: SSO_CLIENT.secret,
      redirectUrl: callback,
      providerName: "Test IdP",
      scopes: "openid profile email groups",
      usernameClaim: "preferred_username",
      roleClaim: "groups",
      roles: SSO_ROLES,
      groupGrants: [
        { group: "team-shop", grant: { role: "editor", clusters: ["staging"], namespaces: [shop] } },
      ],
    },
  });
  prod = await startLocalControlPlane();
  const prodKc = prod.kubeConfig();
  await installCrds(prodKc);
  for (const namespace of [shop, payments]) await ensureNamespace(prodKc, namespace);
  await register("staging", env.kc, await readFile(inject("kubeconfigPath"), "utf8"), { env: "staging" });
  await register("prod", prodKc, await readFile(prod.kubeconfigPath, "utf8"), { env: "prod" });
  // What others made: a flag in each other place the editor must not see.
  for (const [clusterId, namespace] of [
    ["prod", shop],
    ["staging", payments],
    ["prod", payments],
  ] as const) {
    const reply = await createFlag(admin(), clusterId, namespace, `theirs-${clusterId}`);
    expect(reply.status, reply.text).toBe(201);
  }
}, 240_000);

afterAll(async () => {
  await prod.stop();
  await provider.close();
});

/** sam, whose only group maps to a grant (no role), signed in through the provider. */
async function signInWithGroupGrant(): Promise<string> {
  provider.setGroups("sam", ["team-shop"]);
  const browser = new SsoBrowser();
  const callback = `${env.api.url}/api/v1/auth/sso/callback`;
  const url = await browser.signInAtProvider(`${env.api.url}/api/v1/auth/sso/login`, "sam", callback);
  const back = await browser.callback(url);
  const handoff = await browser.redeem(env.api.url, back.fragment.get("code") ?? "");
  expect(handoff.status, JSON.stringify(handoff.json)).toBe(200);
  return (handoff.json as { token: string }).token;
}

describe.each([
  { how: "by cluster id", username: "shop-ed", grant: { role: "editor", clusters: ["staging"] } },
  { how: "by an OIDC group", username: "sam", grant: { role: "editor", clusters: ["staging"] } },
  {
    how: "by cluster labels",
    username: "shop-ed-labels",
    grant: { role: "editor", clusterLabels: { env: "staging" } },
  },
])("an editor of shop in staging, $how", ({ username, grant }) => {
  let token = "";
  const mine = `mine-${username}`;

  beforeAll(async () => {
    token =
      username === "sam"
        ? await signInWithGroupGrant()
        : await scopedUser(username, [{ ...grant, namespaces: [shop] }]);
  });

  it("creates and toggles a flag in staging's shop", async () => {
    const created = await createFlag(token, "staging", shop, mine);
    expect(created.status, created.text).toBe(201);
    const toggled = await call(token, "POST", `/api/v1/flags/${shop}/${mine}/toggle?clusterId=staging`, {});
    expect(toggled.status, toggled.text).toBe(200);
    expect((toggled.json as { enabled: boolean }).enabled).toBe(false);
  });

  it("is refused in prod and in payments, naming the scope, and nothing is written there", async () => {
    for (const [clusterId, namespace] of [
      ["prod", shop],
      ["staging", payments],
    ] as const) {
      const refused = await createFlag(token, clusterId, namespace, `${mine}-x`);
      expect(refused.status, refused.text).toBe(403);
      expect((refused.json as { error: string }).error).toBe(
        `${username} has role ${grant.role} in ${"clusters" in grant ? "cluster staging" : "every cluster labelled env=staging"}, namespace ${shop}; needed editor in cluster ${clusterId}, namespace ${namespace}`,
      );
      const toggle = await call(
        token,
        "POST",
        `/api/v1/flags/${namespace}/theirs-${clusterId}/toggle?clusterId=${clusterId}`,
        {},
      );
      expect(toggle.status, toggle.text).toBe(403);
      const theirs = await call(
        admin(),
        "GET",
        `/api/v1/flags/${namespace}/theirs-${clusterId}?clusterId=${clusterId}`,
      );
      expect((theirs.json as { enabled: boolean }).enabled).toBe(true);
    }
    const absent = await call(admin(), "GET", `/api/v1/flags/${shop}/${mine}-x?clusterId=prod`);
    expect(absent.status).toBe(404);
  });

  it("lists only staging's shop: flags, clusters and namespaces", async () => {
    const flags = (await call(token, "GET", "/api/v1/flags")).json as {
      clusterId: string;
      namespace: string;
    }[];
    expect(flags.length).toBeGreaterThan(0);
    expect(flags.every((f) => f.clusterId === "staging" && f.namespace === shop)).toBe(true);
    const all = (await call(admin(), "GET", "/api/v1/flags")).json as unknown[];
    expect(all.length).toBeGreaterThan(flags.length);
    const clusters = (await call(token, "GET", "/api/v1/clusters")).json as { id: string }[];
    expect(clusters.map((c) => c.id)).toEqual(["staging"]);
    expect((await call(token, "GET", "/api/v1/clusters/staging/namespaces")).json).toEqual([shop]);
    expect((await call(token, "GET", "/api/v1/clusters/prod/namespaces")).status).toBe(403);
  });
});
