// sidecar delivery end to end: the native sidecar svc-flags with its port, readiness probe and
// downward API, RBAC for the pods' ServiceAccount; a value change leaves the pod template
// alone; the last sidecar flag gone removes the sidecar and its RBAC.
import { AppsV1Api, RbacAuthorizationV1Api } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import type { RunningOperator } from "../src/index.ts";
import { createWorkloads, flagClient, operatorScope, startOperator } from "./support/operator.ts";

const kc = testKubeConfig();
const apps = kc.makeApiClient(AppsV1Api);
const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
let ns: string;
let operator: RunningOperator;
let flags: ReturnType<typeof flagClient>;
let templateBefore: unknown;

const deployment = () => apps.readNamespacedDeployment({ namespace: ns, name: "api" });
const sidecarOf = (d: Awaited<ReturnType<typeof deployment>>) =>
  d.spec?.template.spec?.initContainers?.find((c) => c.name === "svc-flags");
const rbacObjects = async () => ({
  role: await rbac.readNamespacedRole({ namespace: ns, name: "svc-flags-reader" }).catch(() => undefined),
  binding: await rbac
    .readNamespacedRoleBinding({ namespace: ns, name: "svc-flags-reader" })
    .catch(() => undefined),
});

beforeAll(async () => {
  ns = await testNamespace(kc, "op-sidecar");
  const scope = await operatorScope(kc, "op-sidecar", [ns]);
  await createWorkloads(kc, ns, [{ kind: "Deployment", name: "api", labels: { tier: "api" } }]);
  templateBefore = JSON.parse(JSON.stringify((await deployment()).spec?.template));
  flags = flagClient(kc, ns);
  operator = await startOperator(scope, { SVC_SIDECAR_IMAGE: "example/svc:test" });
});

afterAll(async () => {
  await operator.close();
});

describe("sidecar delivery", () => {
  it("injects the native sidecar with its port, probe and downward API, and RBAC for the ServiceAccount", async () => {
    await flags.create("limits", {
      type: "json",
      defaultValue: '{"max":3}',
      delivery: { sidecar: { selector: { matchLabels: { tier: "api" } }, port: 8600 } },
    });
    const injected = await eventually(deployment, (d) => sidecarOf(d) !== undefined, "the sidecar");
    const sidecar = sidecarOf(injected);
    expect(sidecar).toMatchObject({
      image: "example/svc:test",
      args: ["sidecar"],
      restartPolicy: "Always",
      ports: [{ containerPort: 8600, name: "svc-flags" }],
      readinessProbe: { httpGet: { path: "/healthz", port: 8600 } },
    });
    expect(sidecar?.env).toContainEqual({
      name: "POD_NAMESPACE",
      valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } },
    });
    expect(sidecar?.resources?.limits).toBeDefined();
    const podinfo = injected.spec?.template.spec?.volumes?.find((v) => v.downwardAPI !== undefined);
    expect(podinfo?.downwardAPI?.items?.[0]?.fieldRef?.fieldPath).toBe("metadata.labels");
    // The app's containers are not touched by a sidecar flag.
    expect(injected.spec?.template.spec?.containers.map((c) => c.name)).toEqual(["main", "helper"]);
    const { role, binding } = await eventually(
      rbacObjects,
      (r) => r.binding !== undefined,
      "the RoleBinding",
    );
    expect(role?.rules).toEqual([
      { apiGroups: ["svc.io"], resources: ["featureflags"], verbs: ["get", "list", "watch"] },
    ]);
    expect(binding?.subjects).toEqual([{ kind: "ServiceAccount", name: "default", namespace: ns }]);
    await eventually(
      () => flags.get("limits"),
      (f) => f.status?.phase === "Delivered",
      "limits Delivered",
    );
  });

  it("leaves the pod template alone when the value changes", async () => {
    await operator.idle();
    const before = await deployment();
    await flags.patchSpec("limits", { defaultValue: '{"max":5}' });
    await eventually(
      () => flags.get("limits"),
      (f) => f.status?.observedGeneration === f.metadata.generation,
      "the change observed by the operator",
    );
    await operator.idle();
    const after = await deployment();
    expect(after.metadata?.generation).toBe(before.metadata?.generation);
  });

  it("removes the sidecar and its RBAC with the last sidecar flag", async () => {
    await flags.remove("limits");
    await eventually(deployment, (d) => sidecarOf(d) === undefined, "the sidecar removed");
    await eventually(rbacObjects, (r) => r.role === undefined && r.binding === undefined, "the RBAC removed");
    expect(JSON.parse(JSON.stringify((await deployment()).spec?.template))).toEqual(templateBefore);
  });
});
