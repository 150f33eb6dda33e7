import { FLAGS_HASH_ANNOTATION, MANAGED_ENV_ANNOTATION, planWorkload } from "@svc/core";
import { describe, expect, it } from "vitest";
import { CLUSTER, configMapFlag, envFlag, sidecarFlag, workload } from "../../core/test/support/workloads.ts";
import {
  supportsNativeSidecar,
  workloadApplyConfiguration,
  type SidecarSettings,
} from "../src/workload-apply.ts";

const sidecar: SidecarSettings = {
  image: "example/svc:1",
  resources: { requests: { cpu: "10m", memory: "32Mi" }, limits: { cpu: "100m", memory: "64Mi" } },
};

const web = workload("web", {
  labels: { app: "web" },
  containers: [
    { name: "app", image: "web:1", env: [{ name: "MODE", value: "fast" }] },
    { name: "proxy", image: "proxy:1" },
  ],
  initContainers: [{ name: "migrate", image: "migrate:1" }],
});
web.object.metadata = { ...web.object.metadata, resourceVersion: "42" };

/** The pod spec of an apply configuration. */
function podSpecOf(configuration: object) {
  return (
    configuration as {
      spec: { template: { spec: { initContainers: Record<string, unknown>[]; volumes: unknown[] } } };
    }
  ).spec.template.spec;
}

describe("workloadApplyConfiguration", () => {
  it("states svc's env var in every app container, the hash on workload and template, and the version it planned from", () => {
    const plan = planWorkload(web, [envFlag("beta", { app: "web" })], CLUSTER);
    const configuration = workloadApplyConfiguration(web, plan, sidecar);
    const env = [{ name: "FLAG_BETA", value: "on" }];
    expect(configuration).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: {
        name: "web",
        namespace: "shop",
        resourceVersion: "42",
        annotations: { [FLAGS_HASH_ANNOTATION]: plan.flagsHash, [MANAGED_ENV_ANNOTATION]: "FLAG_BETA" },
      },
      spec: {
        template: {
          metadata: { annotations: { [FLAGS_HASH_ANNOTATION]: plan.flagsHash } },
          spec: {
            containers: [
              { name: "app", env },
              { name: "proxy", env },
            ],
          },
        },
      },
    });
  });

  it("states nothing but the identity when no flag matches: applying it withdraws all svc set", () => {
    const plan = planWorkload(web, [envFlag("beta", { app: "other" })], CLUSTER);
    expect(workloadApplyConfiguration(web, plan, sidecar)).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "shop", resourceVersion: "42" },
    });
  });

  it("mounts a ConfigMap read-only in every app container, never in init containers", () => {
    const plan = planWorkload(web, [configMapFlag("theme", "ui", { app: "web" })], CLUSTER);
    const spec = podSpecOf(workloadApplyConfiguration(web, plan, sidecar));
    const mount = { name: "svc-flags-ui", mountPath: "/etc/svc-flags/ui", readOnly: true };
    expect(spec).toEqual({
      containers: [
        { name: "app", volumeMounts: [mount] },
        { name: "proxy", volumeMounts: [mount] },
      ],
      volumes: [{ name: "svc-flags-ui", configMap: { name: "ui" } }],
    });
  });

  it("injects the native sidecar on the planned port with probe, downward API and resources", () => {
    const plan = planWorkload(web, [sidecarFlag("limits", { app: "web" }, 8600)], CLUSTER);
    const spec = podSpecOf(workloadApplyConfiguration(web, plan, sidecar));
    expect(spec.initContainers).toEqual([
      expect.objectContaining({
        name: "svc-flags",
        image: "example/svc:1",
        restartPolicy: "Always",
        ports: [{ name: "svc-flags", containerPort: 8600, protocol: "TCP" }],
        readinessProbe: { httpGet: { path: "/healthz", port: 8600 } },
        resources: sidecar.resources,
      }),
    ]);
    expect(spec.initContainers[0]?.["env"]).toContainEqual({
      name: "POD_NAMESPACE",
      valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } },
    });
    expect(spec.volumes).toEqual([
      {
        name: "svc-flags-podinfo",
        downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] },
      },
    ]);
  });
});

describe("the sidecar before Kubernetes 1.29", () => {
  it("is a plain container after the app's own, without restartPolicy", () => {
    const plan = planWorkload(web, [sidecarFlag("limits", { app: "web" })], CLUSTER);
    const spec = podSpecOf(workloadApplyConfiguration(web, plan, sidecar, { nativeSidecar: false })) as {
      containers?: Record<string, unknown>[];
      initContainers?: unknown;
    };
    expect(spec.initContainers).toBeUndefined();
    expect(spec.containers?.map((c) => c["name"])).toEqual(["svc-flags"]);
    expect(spec.containers?.[0]?.["restartPolicy"]).toBeUndefined();
  });

  it("is chosen by the cluster's version", () => {
    expect(supportsNativeSidecar("v1.28.9")).toBe(false);
    expect(supportsNativeSidecar("v1.29.0")).toBe(true);
    expect(supportsNativeSidecar("v1.31.2+k3s1")).toBe(true);
    expect(supportsNativeSidecar(undefined)).toBe(true);
  });
});
