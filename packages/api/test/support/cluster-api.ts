// An API server connected to the shared test control plane as its local cluster, with a
// system namespace of its own, so that test files never see each other's ClusterConnections.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeConfig } from "@kubernetes/client-node";
import { ClusterRegistry, installCrds } from "@svc/kube";
import { afterAll } from "vitest";
import { validFlagSpec } from "../../../../test/support/flag-cases.ts";
import { testKubeConfig, testNamespace } from "../../../../test/support/kube.ts";
import type { ApiConfig } from "../../src/config.ts";
import { ADMIN_PASSWORD, TestApi, testConfig } from "./harness.ts";

export const ROLES = ["admin", "editor", "viewer"] as const;
export type TestRole = (typeof ROLES)[number];

/** The username and password of each role's user. */
export const ROLE_LOGINS: Readonly<Record<TestRole, readonly [string, string]>> = {
  admin: ["admin", ADMIN_PASSWORD],
  editor: ["ed", "ed-password"],
  viewer: ["vi", "vi-password"],
};

/** The login of `who` when it is a role (to sign in again after a logout), else undefined. */
export const roleLogin = (who: string): readonly [string, string] | undefined =>
  (ROLES as readonly string[]).includes(who) ? ROLE_LOGINS[who as TestRole] : undefined;

export interface ClusterApi {
  api: TestApi;
  kc: KubeConfig;
  registry: ClusterRegistry;
  systemNamespace: string;
  /** A live token per role. */
  tokens: Record<TestRole, string>;
}

/** Starts it for the calling test file and stops it after the file's tests; `overrides` change its settings. */
export async function startClusterApi(
  prefix: string,
  overrides: Partial<ApiConfig> = {},
): Promise<ClusterApi> {
  const kc = testKubeConfig();
  await installCrds(kc);
  const systemNamespace = await testNamespace(kc, `${prefix}-svc`);
  const registry = await ClusterRegistry.start({
    hubKubeConfig: kc,
    systemNamespace,
    localClusterId: "local",
  });
  const dir = await mkdtemp(join(tmpdir(), "svc-api-clusters-"));
  const config = {
    ...testConfig({ kind: "sqlite", path: join(dir, "svc.sqlite") }),
    systemNamespace,
    ...overrides,
  };
  const api = await TestApi.start(config, { clusters: registry });
  afterAll(async () => {
    await api.close();
    await registry.close();
    await rm(dir, { recursive: true, force: true });
  });
  const admin = await api.login(...ROLE_LOGINS.admin);
  await api.createUser(admin, ROLE_LOGINS.editor[0], "editor", ROLE_LOGINS.editor[1]);
  await api.createUser(admin, ROLE_LOGINS.viewer[0], "viewer", ROLE_LOGINS.viewer[1]);
  const tokens = {
    admin,
    editor: await api.login(...ROLE_LOGINS.editor),
    viewer: await api.login(...ROLE_LOGINS.viewer),
  };
  return { api, kc, registry, systemNamespace, tokens };
}

/** What the hostile-input suites (the API's and the dashboard proxy's) send their requests to. */
export interface HostileTarget {
  env: ClusterApi;
  namespace: string;
  /** An admin's token that no hostile request is sent as: it reads the stored state. */
  observer: string;
  /** Every operation of the API's OpenAPI document. */
  operations: { method: string; path: string }[];
}

/**
 * A cluster API with the users and flag the hostile suites aim at: `fuzz-target` (a viewer a
 * request may change or delete), an `observer` admin, and flag `seed` in a namespace of its own.
 */
export async function startHostileTarget(prefix: string): Promise<HostileTarget> {
  const env = await startClusterApi(prefix);
  const namespace = await testNamespace(env.kc, prefix);
  const { admin } = env.tokens;
  await env.api.createUser(admin, "fuzz-target", "viewer");
  await env.api.createUser(admin, "observer", "admin");
  const observer = await env.api.login("observer", "observer-password");
  const seed = await env.api.call("POST", "/api/v1/flags", {
    token: admin,
    body: { ...validFlagSpec, name: "seed", namespace, clusterId: "local" },
  });
  if (seed.status !== 201) throw new Error(`the seed flag was not created: ${seed.status} ${seed.text}`);
  const document = (await env.api.call("GET", "/api/v1/openapi.json", { token: admin })).json as {
    paths: Record<string, Record<string, unknown>>;
  };
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path })),
  );
  return { env, namespace, observer, operations };
}
