// The kinds every connected cluster caches, and how each is listed, watched and decoded.
import type { V1DaemonSet, V1Deployment, V1Namespace, V1StatefulSet } from "@kubernetes/client-node";
// client-node does not export the serializer that turns the API's JSON into its typed models
// (Date timestamps, classes); the typed clients use this one, so cached objects, watch events
// and the objects a writer puts back (write-through) all have the same shape.
import { ObjectSerializer } from "@kubernetes/client-node/dist/gen/models/ObjectSerializer.js";
import { API_GROUP_VERSION, FEATURE_FLAG } from "@svc/core";
import type { FeatureFlagResource } from "./types.ts";

export interface CachedKind<T> {
  /** For messages: "list deployments". */
  plural: string;
  /** The collection's path, all namespaces when `namespace` is undefined. */
  path: (namespace: string | undefined) => string;
  namespaced: boolean;
  decode: (raw: unknown) => T;
}

function decodeModel(raw: unknown, type: string): unknown {
  return ObjectSerializer.deserialize(raw, type, "");
}

/**
 * The object without metadata.managedFields, which no reader of workloads or namespaces needs
 * and which is often the largest part of a workload (one entry per writer: kubectl, the
 * controller manager, svc's own applies). Like client-go's informer transforms, this keeps
 * memory per cached object down; flags keep theirs (their updatedAt is read from it).
 */
export function withoutManagedFields(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null) return raw;
  const { metadata } = raw as { metadata?: Record<string, unknown> };
  if (metadata === undefined || !("managedFields" in metadata)) return raw;
  const rest = { ...metadata };
  delete rest["managedFields"];
  return { ...raw, metadata: rest };
}

function namespacedPath(prefix: string, plural: string): (namespace: string | undefined) => string {
  return (namespace) =>
    namespace === undefined ? `${prefix}/${plural}` : `${prefix}/namespaces/${namespace}/${plural}`;
}

export const FLAGS: CachedKind<FeatureFlagResource> = {
  plural: FEATURE_FLAG.plural,
  path: namespacedPath(`/apis/${API_GROUP_VERSION}`, FEATURE_FLAG.plural),
  namespaced: true,
  decode: (raw) => raw as FeatureFlagResource,
};

export const DEPLOYMENTS: CachedKind<V1Deployment> = {
  plural: "deployments",
  path: namespacedPath("/apis/apps/v1", "deployments"),
  namespaced: true,
  decode: (raw) => decodeModel(withoutManagedFields(raw), "V1Deployment") as V1Deployment,
};

export const STATEFUL_SETS: CachedKind<V1StatefulSet> = {
  plural: "statefulsets",
  path: namespacedPath("/apis/apps/v1", "statefulsets"),
  namespaced: true,
  decode: (raw) => decodeModel(withoutManagedFields(raw), "V1StatefulSet") as V1StatefulSet,
};

export const DAEMON_SETS: CachedKind<V1DaemonSet> = {
  plural: "daemonsets",
  path: namespacedPath("/apis/apps/v1", "daemonsets"),
  namespaced: true,
  decode: (raw) => decodeModel(withoutManagedFields(raw), "V1DaemonSet") as V1DaemonSet,
};

export const NAMESPACES: CachedKind<V1Namespace> = {
  plural: "namespaces",
  path: () => "/api/v1/namespaces",
  namespaced: false,
  decode: (raw) => decodeModel(withoutManagedFields(raw), "V1Namespace") as V1Namespace,
};
