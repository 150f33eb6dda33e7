// The server-side apply configuration of a workload: exactly the part svc owns, as the plan of
// packages/core decides it (planWorkload). What the plan no longer states is absent here, and
// the API server removes it because svc's field manager owned it; fields of other managers are
// never named, so never touched.
import { flagContainers, SIDECAR_CONTAINER_NAME, type Workload, type WorkloadPlan } from "@svc/core";
import { SIDECAR_POD_LABELS_FILE, SIDECAR_PODINFO_MOUNT } from "@svc/core/vocabulary";
import type { ApplyConfiguration } from "@svc/kube";

export interface SidecarSettings {
  /** The image running `svc sidecar`. */
  image: string;
  resources: {
    requests: { cpu: string; memory: string };
    limits: { cpu: string; memory: string };
  };
}

/** The downward API volume the sidecar reads the pod's labels from (a rollout's canary step). */
export const PODINFO_VOLUME = "svc-flags-podinfo";

/**
 * Whether the cluster runs native sidecars (init containers with restartPolicy Always, on by
 * default from Kubernetes 1.29). An unknown version is taken as recent.
 */
export function supportsNativeSidecar(gitVersion: string | undefined): boolean {
  const match = /^v?(\d+)\.(\d+)/.exec(gitVersion ?? "");
  if (match === null) return true;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  return major > 1 || (major === 1 && minor >= 29);
}

function sidecarContainer(port: number, settings: SidecarSettings, native: boolean): Record<string, unknown> {
  return {
    name: SIDECAR_CONTAINER_NAME,
    image: settings.image,
    args: ["sidecar"],
    // A native sidecar is started before and stopped after the app containers.
    ...(native ? { restartPolicy: "Always" } : {}),
    ports: [{ name: "svc-flags", containerPort: port, protocol: "TCP" }],
    env: [
      { name: "POD_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
      { name: "SVC_SIDECAR_PORT", value: String(port) },
    ],
    readinessProbe: { httpGet: { path: "/healthz", port } },
    resources: settings.resources,
    volumeMounts: [{ name: PODINFO_VOLUME, mountPath: SIDECAR_PODINFO_MOUNT, readOnly: true }],
  };
}

/** The apply configuration that brings the workload to its plan. */
export function workloadApplyConfiguration(
  workload: Workload,
  plan: WorkloadPlan,
  sidecar: SidecarSettings,
  { nativeSidecar = true } = {},
): ApplyConfiguration {
  const metadata = workload.object.metadata;
  const env = plan.env.map(({ name, value }) => ({ name, value }));
  // A container svc adds nothing to is not named: svc then co-owns none of its fields.
  const containers = flagContainers(workload)
    .map((c) => ({
      name: c.name,
      ...(env.length === 0 ? {} : { env }),
      ...(plan.volumeMounts.length === 0 ? {} : { volumeMounts: plan.volumeMounts }),
    }))
    .filter((c) => Object.keys(c).length > 1);
  const volumes: Record<string, unknown>[] = [...plan.volumes];
  if (plan.sidecar !== undefined) {
    volumes.push({
      name: PODINFO_VOLUME,
      downwardAPI: { items: [{ path: SIDECAR_POD_LABELS_FILE, fieldRef: { fieldPath: "metadata.labels" } }] },
    });
  }
  const injected =
    plan.sidecar === undefined ? undefined : sidecarContainer(plan.sidecar.port, sidecar, nativeSidecar);
  // Before 1.29 the sidecar is a plain container, after the app's own.
  const allContainers = injected !== undefined && !nativeSidecar ? [...containers, injected] : containers;
  const podSpec = {
    ...(allContainers.length === 0 ? {} : { containers: allContainers }),
    ...(injected === undefined || !nativeSidecar ? {} : { initContainers: [injected] }),
    ...(volumes.length === 0 ? {} : { volumes }),
  };
  const templateAnnotations = plan.annotations.podTemplate;
  const template = {
    ...(Object.keys(templateAnnotations).length === 0
      ? {}
      : { metadata: { annotations: templateAnnotations } }),
    ...(Object.keys(podSpec).length === 0 ? {} : { spec: podSpec }),
  };
  const annotations = plan.annotations.workload;
  return {
    apiVersion: "apps/v1",
    kind: workload.kind,
    metadata: {
      name: plan.name,
      namespace: plan.namespace,
      // Optimistic lock: the plan was made from this version; a newer one is planned again.
      ...(metadata?.resourceVersion === undefined ? {} : { resourceVersion: metadata.resourceVersion }),
      ...(Object.keys(annotations).length === 0 ? {} : { annotations }),
    },
    ...(Object.keys(template).length === 0 ? {} : { spec: { template } }),
  };
}
