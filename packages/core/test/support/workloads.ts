// Builders of workloads and flags for the delivery tests, and `applyPlan`: what the operator's
// server-side apply does to a workload (svc's fields replaced, everyone else's kept).
import {
  FLAGS_HASH_ANNOTATION,
  MANAGED_ENV_ANNOTATION,
  observeDelivery,
  SIDECAR_CONTAINER_NAME,
  type Container,
  type DeliveryCluster,
  type FeatureFlagResource,
  type FeatureFlagSpec,
  type Volume,
  type Workload,
  type WorkloadKind,
  type WorkloadPlan,
} from "../../src/index.ts";

/** The cluster the tests plan for: the local one, without a ClusterConnection's labels. */
export const CLUSTER: DeliveryCluster = { id: "local", labels: {} };

export interface WorkloadOptions {
  kind?: WorkloadKind;
  namespace?: string;
  labels?: Record<string, string>;
  templateLabels?: Record<string, string>;
  containers?: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
  annotations?: Record<string, string>;
  templateAnnotations?: Record<string, string>;
}

export function workload(name: string, options: WorkloadOptions = {}): Workload {
  const templateLabels = options.templateLabels ?? { pod: name };
  return {
    kind: options.kind ?? "Deployment",
    object: {
      metadata: {
        name,
        namespace: options.namespace ?? "shop",
        labels: options.labels ?? {},
        annotations: options.annotations ?? {},
      },
      spec: {
        replicas: 2,
        selector: { matchLabels: templateLabels },
        template: {
          metadata: { labels: templateLabels, annotations: options.templateAnnotations ?? {} },
          spec: {
            containers: options.containers ?? [{ name: "app", image: "shop/web:1" }],
            initContainers: options.initContainers ?? [],
            volumes: options.volumes ?? [],
          },
        },
      },
    },
  };
}

export function flag(
  name: string,
  delivery: FeatureFlagSpec["delivery"],
  spec: Partial<Omit<FeatureFlagSpec, "delivery">> = {},
  namespace = "shop",
): FeatureFlagResource {
  return {
    metadata: { name, namespace, generation: 1 },
    spec: { type: "string", defaultValue: "on", enabled: true, ...spec, delivery },
  };
}

export const envFlag = (name: string, labels: Record<string, string>, spec: Partial<FeatureFlagSpec> = {}) =>
  flag(name, { envVar: { selector: { matchLabels: labels } } }, spec);
export const configMapFlag = (name: string, configMapName: string, labels: Record<string, string>) =>
  flag(name, { configMap: { configMapName, key: name, selector: { matchLabels: labels } } });
export const sidecarFlag = (name: string, labels: Record<string, string>, port?: number) =>
  flag(name, { sidecar: { ...(port === undefined ? {} : { port }), selector: { matchLabels: labels } } });

function withAnnotations(
  current: Readonly<Record<string, string>> | undefined,
  ours: Record<string, string>,
) {
  const kept = Object.entries(current ?? {}).filter(
    ([k]) => k !== FLAGS_HASH_ANNOTATION && k !== MANAGED_ENV_ANNOTATION,
  );
  return { ...Object.fromEntries(kept), ...ours };
}

/** Server-side apply drops a list whose last item its owner withdrew. */
const nonEmpty = <T>(list: T[]): T[] | undefined => (list.length === 0 ? undefined : list);

/** The workload after the operator applied `plan` (the sidecar as a native sidecar). */
export function applyPlan(target: Workload, plan: WorkloadPlan): Workload {
  const observed = observeDelivery(target);
  const ourEnv = new Set(observed.managedEnv);
  const spec = target.object.spec;
  const pod = spec?.template.spec;
  if (spec === undefined || pod === undefined) throw new Error("workload without a pod template");
  const ourVolumes = new Set(
    (pod.volumes ?? [])
      .filter((v) => observed.configMapVolumes.includes(v.configMap?.name ?? ""))
      .map((v) => v.name),
  );
  const containers = pod.containers.map((c) =>
    c.name === SIDECAR_CONTAINER_NAME
      ? c
      : {
          ...c,
          env: nonEmpty([
            ...(c.env ?? []).filter((e) => !ourEnv.has(e.name)),
            ...plan.env.map(({ name, value }) => ({ name, value })),
          ]),
          volumeMounts: nonEmpty([
            ...(c.volumeMounts ?? []).filter((m) => !ourVolumes.has(m.name)),
            ...plan.volumeMounts,
          ]),
        },
  );
  const initContainers = (pod.initContainers ?? []).filter((c) => c.name !== SIDECAR_CONTAINER_NAME);
  if (plan.sidecar !== undefined) {
    initContainers.push({
      name: SIDECAR_CONTAINER_NAME,
      image: "svc:dev",
      restartPolicy: "Always",
      ports: [{ containerPort: plan.sidecar.port }],
    });
  }
  return {
    kind: target.kind,
    object: {
      ...target.object,
      metadata: {
        ...target.object.metadata,
        annotations: withAnnotations(target.object.metadata?.annotations, plan.annotations.workload),
      },
      spec: {
        ...spec,
        template: {
          metadata: {
            ...spec.template.metadata,
            annotations: withAnnotations(spec.template.metadata?.annotations, plan.annotations.podTemplate),
          },
          spec: {
            ...pod,
            containers,
            initContainers,
            volumes: [...(pod.volumes ?? []).filter((v) => !ourVolumes.has(v.name)), ...plan.volumes],
          },
        },
      },
    },
  };
}
