// SPEC.md's Clusters and Workloads sections, walked through the REST API: svc dev's own cluster
// (id local, with the demo workloads) and a registration with SPEC.md's documented body.
import { expect } from "vitest";
import { eventually } from "../../support/kube.ts";
import { expectError, expectFields, expectJson, expectMessage, tokensByRole, type SpecApi } from "./api.ts";

const CLUSTER_FIELDS = {
  id: "string",
  displayName: "string",
  apiServer: "string",
  status: "string",
  kubernetesVersion: "string",
  discoveredWorkloads: "integer",
} as const;

export async function walkClusters(api: SpecApi, adminToken: string): Promise<void> {
  const { editor, viewer } = await tokensByRole(api, adminToken, "spec-clusters");
  const clusters = expectJson(await api.call("GET", "/api/v1/clusters", viewer), 200) as unknown[];
  for (const c of clusters) expectFields(c, CLUSTER_FIELDS);
  const local = expectJson(await api.call("GET", "/api/v1/clusters/local", viewer), 200) as {
    apiServer: string;
    discoveredWorkloads: number;
    kubernetesVersion: string;
  };
  expectFields(local, CLUSTER_FIELDS);
  expect(local).toMatchObject({ id: "local", status: "Connected" });
  expect(local.kubernetesVersion).toMatch(/^v?\d+\.\d+/);
  expect(local.discoveredWorkloads).toBeGreaterThanOrEqual(3); // web, cache and log-agent
  expect(clusters).toContainEqual(local);
  expectError(await api.call("GET", "/api/v1/clusters/nowhere", viewer), 404);

  // Registration with SPEC.md's body alone (no credentials): 201, then Error naming them.
  const body = { id: "spec-east", displayName: "East (SPEC walk)", apiServer: local.apiServer };
  for (const token of [editor, viewer])
    expectError(await api.call("POST", "/api/v1/clusters", token, body), 403);
  expectError(
    await api.call("POST", "/api/v1/clusters", adminToken, { ...body, apiServer: undefined }),
    400,
    /apiServer/,
  );
  const created = await api.call("POST", "/api/v1/clusters", adminToken, body);
  expect(expectJson(created, 201)).toMatchObject(body);
  expectError(await api.call("POST", "/api/v1/clusters", adminToken, body), 409);
  expectError(await api.call("POST", "/api/v1/clusters", adminToken, { ...body, id: "local" }), 409);
  const failing = await eventually(
    async () => (await api.call("GET", "/api/v1/clusters/spec-east", viewer)).json as { status?: string },
    (cluster) => cluster.status === "Error",
    "spec-east in phase Error",
    30_000,
  );
  expect(failing).toMatchObject(body);
  // The message (DESIGN.md §4's field) names what is missing: the credentials, and where.
  expect((failing as { message: string }).message).toMatch(/credentials.*svc-cluster-spec-east/);
  const listed = expectJson(await api.call("GET", "/api/v1/clusters", viewer), 200) as { id: string }[];
  expect(listed.map((c) => c.id)).toEqual(expect.arrayContaining(["local", "spec-east"]));

  // Removal: admin only; then gone.
  for (const token of [editor, viewer])
    expectError(await api.call("DELETE", "/api/v1/clusters/spec-east", token), 403);
  expectMessage(await api.call("DELETE", "/api/v1/clusters/spec-east", adminToken));
  expectError(await api.call("GET", "/api/v1/clusters/spec-east", viewer), 404);
  expectError(await api.call("DELETE", "/api/v1/clusters/spec-east", adminToken), 404);
}

export async function walkWorkloads(api: SpecApi, adminToken: string): Promise<void> {
  const { viewer } = await tokensByRole(api, adminToken, "spec-workloads");
  const namespaces = expectJson(
    await api.call("GET", "/api/v1/clusters/local/namespaces", viewer),
    200,
  ) as unknown[];
  expect(namespaces.every((n) => typeof n === "string")).toBe(true);
  expect(namespaces).toContain("demo");
  for (const system of ["kube-system", "kube-public", "kube-node-lease", "svc-system"])
    expect(namespaces).not.toContain(system);
  expectError(await api.call("GET", "/api/v1/clusters/nowhere/namespaces", viewer), 404);

  // The demo's three kinds, with what SPEC.md says a DiscoveredWorkload holds (field names not shown).
  const all = expectJson(await api.call("GET", "/api/v1/clusters/local/workloads", viewer), 200) as unknown[];
  const demo = expectJson(
    await api.call("GET", "/api/v1/clusters/local/workloads?namespace=demo", viewer),
    200,
  ) as { name: string; kind: string }[];
  expect(demo.map((w) => `${w.kind}/${w.name}`).sort()).toEqual([
    "DaemonSet/log-agent",
    "Deployment/web",
    "StatefulSet/cache",
  ]);
  expect(all).toEqual(expect.arrayContaining(demo));
  const other = await api.call("GET", "/api/v1/clusters/local/workloads?namespace=default", viewer);
  expect((expectJson(other, 200) as unknown[]).length).toBeLessThan(all.length);
  const web = await api.call("GET", "/api/v1/clusters/local/workloads/demo/web", viewer);
  expect((expectJson(web, 200) as { name: string }).name).toBe("web");
  expect(web.text).toContain("FLAG_NEW_CHECKOUT"); // the demo flag it carries (existing injections)
  const cache = JSON.stringify(demo.find((w) => w.name === "cache"));
  expect(cache).toContain("demo-flags"); // its ConfigMap reference
  expectError(await api.call("GET", "/api/v1/clusters/local/workloads/demo/no-such-workload", viewer), 404);
  expectError(await api.call("GET", "/api/v1/clusters/nowhere/workloads", viewer), 404);
}
