import type {
  ClusterConnectionSpec,
  ClusterConnectionStatus,
  FeatureFlagSpec,
  FeatureFlagStatus,
} from "@svc/core";

/**
 * Object metadata as the API server sends it in JSON. Custom resources are not decoded into
 * client-node's models, so unlike V1ObjectMeta their timestamps are strings.
 */
export interface ObjectMetaJson {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }[];
  managedFields?: unknown[];
}

export interface FeatureFlagResource {
  apiVersion: string;
  kind: string;
  metadata: ObjectMetaJson;
  spec: FeatureFlagSpec;
  status?: FeatureFlagStatus;
}

export interface ClusterConnectionResource {
  apiVersion: string;
  kind: string;
  metadata: ObjectMetaJson;
  spec: ClusterConnectionSpec;
  status?: ClusterConnectionStatus;
}

/** A Secret as JSON: `data` values are base64. Only the registry's credential reader looks inside. */
export interface SecretJson {
  metadata: ObjectMetaJson;
  data?: Record<string, string>;
}

/** Namespaces never scanned when a connection lists none (Kubernetes' own and svc's). */
export const SYSTEM_NAMESPACES: readonly string[] = [
  "kube-system",
  "kube-public",
  "kube-node-lease",
  "svc-system",
];

export interface Logger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
