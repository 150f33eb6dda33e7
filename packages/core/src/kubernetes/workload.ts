/**
 * The workloads svc delivers flags to, seen through the fields it reads. The types are
 * structural: client-node's V1Deployment, V1StatefulSet and V1DaemonSet (and the plain JSON an
 * informer or a test builds) satisfy them without core importing client-node. Every field is
 * optional where Kubernetes' own types make it optional. Imports only types that import
 * nothing, so any module may use it without a cycle.
 */
import type { ObjectMeta } from "./object-meta.ts";

export const WORKLOAD_KINDS = ["Deployment", "StatefulSet", "DaemonSet"] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

/** SHA-256 of the envVar flags on a workload, on the workload and its pod template (rolls it). */
export const FLAGS_HASH_ANNOTATION = "svc.io/flags-hash";
/**
 * The env var names svc set on a workload, comma-separated, sorted; on the workload's own
 * metadata (not the pod template, so it never rolls pods by itself). An env var of a flag's
 * name that is not listed here was defined by someone else and is never overwritten.
 */
export const MANAGED_ENV_ANNOTATION = "svc.io/managed-env";
/** The injected flag server container. */
export const SIDECAR_CONTAINER_NAME = "svc-flags";
/** Where a ConfigMap delivered by svc is mounted: `${CONFIGMAP_MOUNT_ROOT}/<configMapName>`. */
export const CONFIGMAP_MOUNT_ROOT = "/etc/svc-flags";

export interface ObjectReferenceByName {
  name?: string | undefined;
}

export interface EnvVarSource {
  configMapKeyRef?: (ObjectReferenceByName & { key: string }) | undefined;
  secretKeyRef?: (ObjectReferenceByName & { key: string }) | undefined;
  fieldRef?: { fieldPath: string; apiVersion?: string | undefined } | undefined;
  resourceFieldRef?: { resource: string; containerName?: string | undefined } | undefined;
}

export interface EnvVar {
  name: string;
  value?: string | undefined;
  valueFrom?: EnvVarSource | undefined;
}

export interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly?: boolean | undefined;
}

export interface Container {
  name: string;
  image?: string | undefined;
  env?: readonly EnvVar[] | undefined;
  envFrom?:
    | readonly {
        configMapRef?: ObjectReferenceByName | undefined;
        secretRef?: ObjectReferenceByName | undefined;
      }[]
    | undefined;
  volumeMounts?: readonly VolumeMount[] | undefined;
  ports?: readonly { containerPort: number; name?: string | undefined }[] | undefined;
  /** "Always" on an init container makes it a native sidecar (Kubernetes 1.29+). */
  restartPolicy?: string | undefined;
}

export interface Volume {
  name: string;
  configMap?: ObjectReferenceByName | undefined;
  secret?: { secretName?: string | undefined } | undefined;
  projected?:
    | {
        sources?:
          | readonly {
              configMap?: ObjectReferenceByName | undefined;
              secret?: ObjectReferenceByName | undefined;
            }[]
          | undefined;
      }
    | undefined;
}

export interface PodSpec {
  containers: readonly Container[];
  initContainers?: readonly Container[] | undefined;
  volumes?: readonly Volume[] | undefined;
  serviceAccountName?: string | undefined;
}

/** The subset of an apps/v1 Deployment, StatefulSet or DaemonSet that svc reads. */
export interface WorkloadObject {
  metadata?: ObjectMeta | undefined;
  spec?:
    | {
        replicas?: number | undefined;
        selector: { matchLabels?: Readonly<Record<string, string>> | undefined };
        template: {
          metadata?:
            | {
                labels?: Readonly<Record<string, string>> | undefined;
                annotations?: Readonly<Record<string, string>> | undefined;
              }
            | undefined;
          spec?: PodSpec | undefined;
        };
      }
    | undefined;
  status?:
    | {
        /** Deployment and StatefulSet. */
        readyReplicas?: number | undefined;
        /** DaemonSet. */
        numberReady?: number | undefined;
        desiredNumberScheduled?: number | undefined;
      }
    | undefined;
}

export interface Workload {
  kind: WorkloadKind;
  object: WorkloadObject;
}

/** Orders workloads by kind (as WORKLOAD_KINDS lists them), then namespace, then name. */
export function compareWorkloads(
  a: { kind: WorkloadKind; namespace: string; name: string },
  b: { kind: WorkloadKind; namespace: string; name: string },
): number {
  return (
    WORKLOAD_KINDS.indexOf(a.kind) - WORKLOAD_KINDS.indexOf(b.kind) ||
    compareStrings(a.namespace, b.namespace) ||
    compareStrings(a.name, b.name)
  );
}

/** Code-unit order, independent of the locale (what `sort()` does, as a comparator). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function workloadName(workload: Workload): string {
  return workload.object.metadata?.name ?? "";
}

export function workloadNamespace(workload: Workload): string {
  return workload.object.metadata?.namespace ?? "";
}

export function podSpecOf(workload: Workload): PodSpec {
  return workload.object.spec?.template.spec ?? { containers: [] };
}

/** The desired replica count: a DaemonSet's is the number of nodes it is scheduled on. */
export function replicasOf(workload: Workload): number {
  const { spec, status } = workload.object;
  if (workload.kind === "DaemonSet") return status?.desiredNumberScheduled ?? 0;
  return spec?.replicas ?? 1;
}

export function readyReplicasOf(workload: Workload): number {
  const status = workload.object.status;
  return (workload.kind === "DaemonSet" ? status?.numberReady : status?.readyReplicas) ?? 0;
}
