// SPEC.md's Clusters and Workloads sections, walked through the REST API: svc dev's own cluster
// (id local, with the demo workloads) and a registration with SPEC.md's documented body.
import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
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

interface ClusterConnection {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string };
  spec: Record<string, unknown>;
}

/** The ClusterConnection resources in svc-system, by name, each checked against SPEC.md's table. */
async function clusterConnections(hub: KubeConfig): Promise<Map<string, ClusterConnection>> {
  const list = (await hub.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
    group: "svc.io",
    version: "v1alpha1",
    namespace: "svc-system",
    plural: "clusterconnections",
  })) as { items: ClusterConnection[] };
  for (const { apiVersion, kind, metadata, spec } of list.items) {
    expect({ apiVersion, kind, namespace: metadata.namespace }).toEqual({
      apiVersion: "svc.io/v1alpha1",
      kind: "ClusterConnection",
      namespace: "svc-system",
    });
    expectFields(spec, { displayName: "string", apiServer: "string", authMethod: "string" });
    expect(["kubeconfig", "serviceaccount", "oidc"]).toContain(spec["authMethod"]);
    if (spec["credentialRef"] !== undefined)
      expectFields(spec["credentialRef"], { name: "string", key: "string" });
    const optional = { namespaces: "array", resyncPeriod: "string", labels: "object" } as const;
    for (const [field, type] of Object.entries(optional))
      if (spec[field] !== undefined) expectFields(spec, { [field]: type });
  }
  return new Map(list.items.map((c) => [c.metadata.name, c]));
}

export async function walkClusters(api: SpecApi, adminToken: string, hub: KubeConfig): Promise<void> {
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
  // The local cluster registered itself (SPEC.md): its ClusterConnection has the local id.
  expect([...(await clusterConnections(hub)).keys()]).toContain("local");

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
  expect((await clusterConnections(hub)).get("spec-east")?.spec).toMatchObject({
    displayName: body.displayName,
    apiServer: body.apiServer,
    credentialRef: { name: "svc-cluster-spec-east" },
  });

  // Removal: admin only; then gone.
  for (const token of [editor, viewer])
    expectError(await api.call("DELETE", "/api/v1/clusters/spec-east", token), 403);
  expectMessage(await api.call("DELETE", "/api/v1/clusters/spec-east", adminToken));
  expectError(await api.call("GET", "/api/v1/clusters/spec-east", viewer), 404);
  expectError(await api.call("DELETE", "/api/v1/clusters/spec-east", adminToken), 404);
  expect([...(await clusterConnections(hub)).keys()]).not.toContain("spec-east");
  // The local cluster cannot be removed (DESIGN.md §4).
  expectError(await api.call("DELETE", "/api/v1/clusters/local", adminToken), 400);
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
  type Named = { namespace: string; name: string; kind: string };
  const workloads = async (query: string) =>
    expectJson(await api.call("GET", `/api/v1/clusters/local/workloads${query}`, viewer), 200) as Named[];
  const keys = (list: Named[]) => list.map((w) => `${w.namespace}/${w.kind}/${w.name}`).sort();
  const all = await workloads("");
  const demo = await workloads("?namespace=demo");
  expect(keys(demo)).toEqual(["demo/DaemonSet/log-agent", "demo/Deployment/web", "demo/StatefulSet/cache"]);
  expect(keys(all)).toEqual(expect.arrayContaining(keys(demo)));
  // The cluster's count of discovered workloads is the number it lists.
  const local = expectJson(await api.call("GET", "/api/v1/clusters/local", viewer), 200);
  expect((local as { discoveredWorkloads: number }).discoveredWorkloads).toBe(all.length);
  expect(keys(await workloads("?namespace=default"))).not.toContain("demo/Deployment/web");
  const web = await api.call("GET", "/api/v1/clusters/local/workloads/demo/web", viewer);
  expect((expectJson(web, 200) as { name: string }).name).toBe("web");
  expect(web.text).toContain("FLAG_NEW_CHECKOUT"); // the demo flag it carries (existing injections)
  const cache = JSON.stringify(demo.find((w) => w.name === "cache"));
  expect(cache).toContain("demo-flags"); // its ConfigMap reference
  expectError(await api.call("GET", "/api/v1/clusters/local/workloads/demo/no-such-workload", viewer), 404);
  expectError(await api.call("GET", "/api/v1/clusters/nowhere/workloads", viewer), 404);
}
