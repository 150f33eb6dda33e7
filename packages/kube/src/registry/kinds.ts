// The kinds every connected cluster caches, and how each is listed, watched and decoded.
// Workloads are cached as plain objects reduced to core's WorkloadObject: the type then says
// what a reader may read, and nothing read is lost (packages/core/test/trim.test.ts).
import type { V1Namespace } from "@kubernetes/client-node";
// client-node does not export the serializer that turns the API's JSON into its typed models
// (Date timestamps, classes); the typed clients use this one, so a cached namespace has the
// shape the typed clients return.
import { ObjectSerializer } from "@kubernetes/client-node/dist/gen/models/ObjectSerializer.js";
import {
  API_GROUP_VERSION,
  FEATURE_FLAG,
  trimFlag,
  trimWorkload,
  withoutBookkeeping,
  type WorkloadObject,
} from "@svc/core";
import type { FeatureFlagResource } from "./types.ts";

export interface CachedKind<T> {
  /** For messages: "list deployments". */
  plural: string;
  /** The collection's path, all namespaces when `namespace` is undefined. */
  path: (namespace: string | undefined) => string;
  namespaced: boolean;
  /**
   * The API's JSON turned into what the cache keeps, for listed and watched objects alike: the
   * kind's transform (client-go's TransformFunc), which keeps only what readers use (trim.ts).
   */
  decode: (raw: unknown) => T;
}

function decodeModel(raw: unknown, type: string): unknown {
  return ObjectSerializer.deserialize(raw, type, "");
}

function namespacedPath(prefix: string, plural: string): (namespace: string | undefined) => string {
  return (namespace) =>
    namespace === undefined ? `${prefix}/${plural}` : `${prefix}/namespaces/${namespace}/${plural}`;
}

export const FLAGS: CachedKind<FeatureFlagResource> = {
  plural: FEATURE_FLAG.plural,
  path: namespacedPath(`/apis/${API_GROUP_VERSION}`, FEATURE_FLAG.plural),
  namespaced: true,
  decode: (raw) => trimFlag(raw as FeatureFlagResource),
};

export const DEPLOYMENTS: CachedKind<WorkloadObject> = {
  plural: "deployments",
  path: namespacedPath("/apis/apps/v1", "deployments"),
  namespaced: true,
  decode: (raw) => trimWorkload(raw as WorkloadObject),
};

export const STATEFUL_SETS: CachedKind<WorkloadObject> = {
  plural: "statefulsets",
  path: namespacedPath("/apis/apps/v1", "statefulsets"),
  namespaced: true,
  decode: (raw) => trimWorkload(raw as WorkloadObject),
};

export const DAEMON_SETS: CachedKind<WorkloadObject> = {
  plural: "daemonsets",
  path: namespacedPath("/apis/apps/v1", "daemonsets"),
  namespaced: true,
  decode: (raw) => trimWorkload(raw as WorkloadObject),
};

export const NAMESPACES: CachedKind<V1Namespace> = {
  plural: "namespaces",
  path: () => "/api/v1/namespaces",
  namespaced: false,
  decode: (raw) => decodeModel(withoutBookkeeping(raw as V1Namespace), "V1Namespace") as V1Namespace,
};
