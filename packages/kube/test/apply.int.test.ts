// The server-side apply helper on a real kube-apiserver: what svc stops stating is removed,
// other managers' fields are kept, a conflict is refused unless forced, status goes through
// the status subresource.
import { AppsV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, FEATURE_FLAG } from "@svc/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import { ObjectWriter } from "../src/apply.ts";
import { installCrds } from "../src/crds.ts";
import { KubeApiError } from "@svc/kube-wire";

const kc = testKubeConfig();
let ns: string;
const writes: string[] = [];
const writer = new ObjectWriter(kc, {
  timeoutMs: 10_000,
  onWrite: (verb, ref) => writes.push(`${verb} ${ref.kind}/${ref.metadata.name}`),
});
const apps = kc.makeApiClient(AppsV1Api);

beforeAll(async () => {
  await installCrds(kc);
  ns = await testNamespace(kc, "apply");
  await apps.createNamespacedDeployment({
    namespace: ns,
    body: {
      metadata: { name: "web", labels: { app: "web" } },
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: {
            containers: [{ name: "main", image: "example/web:1", env: [{ name: "MODE", value: "fast" }] }],
          },
        },
      },
    },
  });
});

afterAll(() => writer.close());

const envOf = async () =>
  (await apps.readNamespacedDeployment({ namespace: ns, name: "web" })).spec?.template.spec?.containers[0]
    ?.env;

const withEnv = (env: { name: string; value: string }[]) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: ns },
  spec: { template: { spec: { containers: [{ name: "main", env }] } } },
});

describe("ObjectWriter.apply", () => {
  it("adds svc's env var beside the user's, and removes it when no longer stated", async () => {
    await writer.apply(withEnv([{ name: "FLAG_A", value: "on" }]), { force: true });
    expect(await envOf()).toEqual([
      { name: "MODE", value: "fast" },
      { name: "FLAG_A", value: "on" },
    ]);
    await writer.apply(
      { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: ns } },
      {
        force: true,
      },
    );
    expect(await envOf()).toEqual([{ name: "MODE", value: "fast" }]);
  });

  it("refuses to take a field another manager owns unless forced", async () => {
    const conflict = writer.apply(withEnv([{ name: "MODE", value: "slow" }]), { force: false });
    await expect(conflict).rejects.toBeInstanceOf(KubeApiError);
    await expect(conflict).rejects.toMatchObject({ status: 409 });
    expect(await envOf()).toEqual([{ name: "MODE", value: "fast" }]);
  });

  it("writes status through the status subresource only", async () => {
    const objects = kc.makeApiClient(CustomObjectsApi);
    await objects.createNamespacedCustomObject({
      group: API_GROUP,
      version: "v1alpha1",
      namespace: ns,
      plural: FEATURE_FLAG.plural,
      body: {
        apiVersion: API_GROUP_VERSION,
        kind: FEATURE_FLAG.kind,
        metadata: { name: "f" },
        spec: {
          type: "boolean",
          defaultValue: "true",
          delivery: { envVar: { selector: { matchLabels: { a: "b" } } } },
        },
      },
    });
    const ref = {
      apiVersion: API_GROUP_VERSION,
      kind: "FeatureFlag",
      metadata: { name: "f", namespace: ns },
    };
    const stored = await writer.apply<{ status?: { phase?: string } }>(
      { ...ref, status: { phase: "NoTargets" } },
      { force: true, subresource: "status" },
    );
    expect(stored.status?.phase).toBe("NoTargets");
    // The main resource ignores status.
    const main = await writer.apply<{ status?: { phase?: string } }>(
      { ...ref, status: { phase: "Delivered" } },
      { force: true },
    );
    expect(main.status?.phase).toBe("NoTargets");
  });

  it("reads and deletes, telling absent objects apart", async () => {
    const ref = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: ns } };
    expect(await writer.read(ref)).toBeUndefined();
    await writer.apply({ ...ref, data: { k: "v" } }, { force: true });
    expect(await writer.read<{ data: Record<string, string> }>(ref)).toMatchObject({ data: { k: "v" } });
    expect(await writer.remove(ref)).toBe(true);
    expect(await writer.remove(ref)).toBe(false);
    expect(writes).toContain("delete ConfigMap/cm");
  });

  it("ends a call when its signal is aborted (a reconcile canceled by shutdown), writing nothing", async () => {
    const ref = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "canceled", namespace: ns } };
    const stopped = new AbortController();
    stopped.abort(new Error("the work queue shut down"));
    const { signal } = stopped;
    await expect(writer.apply({ ...ref, data: { k: "v" } }, { force: true, signal })).rejects.toThrow(
      "the work queue shut down",
    );
    await expect(writer.read(ref, { signal })).rejects.toThrow("the work queue shut down");
    expect(await writer.read(ref)).toBeUndefined();
  });
});

describe("ObjectWriter.patch", () => {
  it("sets and removes fields only when the object is still at the resourceVersion read, else 409", async () => {
    const ref = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "patched", namespace: ns } };
    const created = await writer.apply<{ metadata: { resourceVersion: string } }>(
      { ...ref, data: { keep: "1", drop: "2" } },
      { force: true },
    );
    const patched = await writer.patch<{
      data: Record<string, string>;
      metadata: { resourceVersion: string };
    }>(ref, created.metadata.resourceVersion, [
      { op: "add", path: "/data/new", value: "3" },
      { op: "remove", path: "/data/drop" },
    ]);
    expect(patched.data).toEqual({ keep: "1", new: "3" });
    expect(writes).toContain("patch ConfigMap/patched");
    // A patch from the older read: refused as a conflict, the object unchanged.
    const stale = writer.patch(ref, created.metadata.resourceVersion, [
      { op: "add", path: "/data/keep", value: "x" },
    ]);
    await expect(stale).rejects.toMatchObject({ status: 409 });
    expect(await writer.read<{ data: Record<string, string> }>(ref)).toMatchObject({
      data: { keep: "1", new: "3" },
    });
  });
});
