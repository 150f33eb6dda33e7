export * from "./backoff.ts";
export * from "./conditions.ts";
export * from "./crds.ts";
export * from "./namespaces.ts";
export * from "./ports.ts";
export * from "./resource-version.ts";
export * from "./wait.ts";
export {
  ClusterRegistry,
  type ClusterRegistryEvent,
  type ClusterRegistryOptions,
} from "./registry/cluster-registry.ts";
export type { ConnectedCluster } from "./registry/connected-cluster.ts";
export {
  CA_KEY,
  clusterCredentials,
  connectionFingerprint,
  type ClusterCredentials,
} from "./registry/credentials.ts";
export {
  ClusterUnavailableError,
  decideHealth,
  describeFailure,
  type ClusterHealth,
  type ClusterState,
  type Failure,
} from "./registry/health.ts";
export type { CacheEvent, InformerCache } from "./registry/informer-cache.ts";
export type { FlagVersions } from "./registry/flag-versions.ts";
export { KubeApiError } from "@svc/kube-wire";
export * from "./registry/types.ts";
export * from "./work-queue.ts";
export * from "./apply.ts";
export * from "./collection-watch.ts";
