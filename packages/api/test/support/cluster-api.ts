// An API server connected to the shared test control plane as its local cluster, with a
// system namespace of its own, so that test files never see each other's ClusterConnections.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeConfig } from "@kubernetes/client-node";
import { ClusterRegistry, installCrds } from "@svc/kube";
import { afterAll } from "vitest";
import { testKubeConfig, testNamespace } from "../../../../test/support/kube.ts";
import { ADMIN_PASSWORD, TestApi, testConfig } from "./harness.ts";

export const ROLES = ["admin", "editor", "viewer"] as const;
export type TestRole = (typeof ROLES)[number];

export interface ClusterApi {
  api: TestApi;
  kc: KubeConfig;
  registry: ClusterRegistry;
  systemNamespace: string;
  /** A live token per role. */
  tokens: Record<TestRole, string>;
}

/** Starts it for the calling test file and stops it after the file's tests. */
export async function startClusterApi(prefix: string): Promise<ClusterApi> {
  const kc = testKubeConfig();
  await installCrds(kc);
  const systemNamespace = await testNamespace(kc, `${prefix}-svc`);
  const registry = await ClusterRegistry.start({
    hubKubeConfig: kc,
    systemNamespace,
    localClusterId: "local",
    requestTimeoutMs: 3000,
  });
  const dir = await mkdtemp(join(tmpdir(), "svc-api-clusters-"));
  const config = { ...testConfig({ kind: "sqlite", path: join(dir, "svc.sqlite") }), systemNamespace };
  const api = await TestApi.start(config, { clusters: registry });
  afterAll(async () => {
    await api.close();
    await registry.close();
    await rm(dir, { recursive: true, force: true });
  });
  const admin = await api.login("admin", ADMIN_PASSWORD);
  await api.createUser(admin, "ed", "editor");
  await api.createUser(admin, "vi", "viewer");
  const tokens = {
    admin,
    editor: await api.login("ed", "ed-password"),
    viewer: await api.login("vi", "vi-password"),
  };
  return { api, kc, registry, systemNamespace, tokens };
}
