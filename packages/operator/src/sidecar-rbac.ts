// The RBAC an injected sidecar needs: a Role reading the FeatureFlags of its namespace and a
// RoleBinding granting it to the ServiceAccounts of the pods that run the sidecar. Both exist
// while a workload of the namespace is planned with the sidecar, and go with the last one.
import {
  API_GROUP,
  canonicalJson,
  FEATURE_FLAG,
  podSpecOf,
  type Workload,
  type WorkloadPlan,
} from "@svc/core";
import type { ApplyConfiguration } from "@svc/kube";
import { MANAGED_BY_LABEL } from "./configmap-apply.ts";

/** The name of the Role and of the RoleBinding. */
export const SIDECAR_RBAC_NAME = "svc-flags-reader";

const RULES = [{ apiGroups: [API_GROUP], resources: [FEATURE_FLAG.plural], verbs: ["get", "list", "watch"] }];

/** The ServiceAccounts of the workloads planned with the sidecar, sorted. */
export function sidecarServiceAccounts(
  planned: readonly { workload: Workload; plan: WorkloadPlan }[],
): string[] {
  const accounts = planned
    .filter(({ plan }) => plan.sidecar !== undefined)
    .map(({ workload }) => podSpecOf(workload).serviceAccountName ?? "default");
  return [...new Set(accounts)].sort();
}

export function sidecarRole(namespace: string): ApplyConfiguration {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: { name: SIDECAR_RBAC_NAME, namespace, labels: { [MANAGED_BY_LABEL]: "svc" } },
    rules: RULES,
  };
}

export function sidecarRoleBinding(
  namespace: string,
  serviceAccounts: readonly string[],
): ApplyConfiguration {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name: SIDECAR_RBAC_NAME, namespace, labels: { [MANAGED_BY_LABEL]: "svc" } },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: SIDECAR_RBAC_NAME },
    subjects: serviceAccounts.map((name) => ({ kind: "ServiceAccount", name, namespace })),
  };
}

interface Labelled {
  metadata?: { labels?: Record<string, string> };
}
export interface RoleJson extends Labelled {
  rules?: { apiGroups?: string[]; resources?: string[]; verbs?: string[] }[];
}
export interface RoleBindingJson extends Labelled {
  subjects?: { kind: string; name: string; namespace?: string }[];
}

/** Whether svc made the object (an object of that name made by someone else is never deleted). */
export function madeBySvc(object: Labelled | undefined): boolean {
  return object?.metadata?.labels?.[MANAGED_BY_LABEL] === "svc";
}

export function roleInSync(current: RoleJson | undefined): boolean {
  return current !== undefined && canonicalJson(current.rules ?? []) === canonicalJson(RULES);
}

export function roleBindingInSync(
  current: RoleBindingJson | undefined,
  namespace: string,
  serviceAccounts: readonly string[],
): boolean {
  if (current === undefined) return false;
  const subjects = (current.subjects ?? []).map((s) => `${s.kind}/${s.namespace ?? ""}/${s.name}`).sort();
  const wanted = serviceAccounts.map((name) => `ServiceAccount/${namespace}/${name}`);
  return subjects.join(",") === wanted.join(",");
}
