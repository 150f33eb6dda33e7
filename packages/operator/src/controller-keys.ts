// The keys a ClusterController queues, defined once: an object (a flag, a workload, a ConfigMap)
// or a part of a namespace that is no single object. Parsed once from the queue's string, then
// dispatched by an exhaustive switch over `kind`.
import { FEATURE_FLAG, WORKLOAD_KINDS, type WorkloadKind } from "@svc/core";
import { TerminalError, workQueueKey, type WorkQueueKey } from "@svc/kube";

export type ControllerKey =
  | { kind: typeof FEATURE_FLAG.kind | WorkloadKind | "ConfigMap"; namespace: string; name: string }
  /** The Role and RoleBinding through which the namespace's sidecars read its flags. */
  | { kind: "SidecarRBAC"; namespace: string }
  /** Every ConfigMap of the namespace labelled as svc's, listed from the cluster and each queued. */
  | { kind: "ManagedConfigMaps"; namespace: string };

const NAMESPACE_KINDS = ["SidecarRBAC", "ManagedConfigMaps"] as const;
const OBJECT_KINDS = [FEATURE_FLAG.kind, "ConfigMap", ...WORKLOAD_KINDS] as const;

/** The queue's `cluster/namespace/kind/name`; a namespace key's name is empty. */
export function controllerQueueKey(cluster: string, key: ControllerKey): string {
  return workQueueKey({
    cluster,
    namespace: key.namespace,
    kind: key.kind,
    name: "name" in key ? key.name : "",
  });
}

/** The key a queue string stands for; one of no known kind cannot be reconciled, ever. */
export function parseControllerKey({ namespace, kind, name }: WorkQueueKey): ControllerKey {
  const namespaceKind = NAMESPACE_KINDS.find((k) => k === kind);
  if (namespaceKind !== undefined) return { kind: namespaceKind, namespace };
  const objectKind = OBJECT_KINDS.find((k) => k === kind);
  if (objectKind !== undefined) return { kind: objectKind, namespace, name };
  throw new TerminalError(`no reconciler for key kind ${kind}`);
}
