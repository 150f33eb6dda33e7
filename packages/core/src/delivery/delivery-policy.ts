/**
 * Where svc may deliver flags at all, set by the installer (the operator's and the API's
 * settings, the chart's `delivery` values) and by the owners of namespaces and workloads, as
 * service meshes decide where to inject. planWorkload applies it, so the operator and the API's
 * preview agree; the API refuses a flag in a namespace never delivered to (docs/delivery.md,
 * "Where svc never delivers").
 */
import { SYSTEM_NAMESPACE } from "../clusters/cluster-connection.ts";
import { foreignConfigMapMessage } from "./configmap-owner.ts";
import { envVarNameProblem } from "./env-var-names.ts";
import { flagEnvVarName, type FeatureFlagResource } from "../flags/flag-resource.ts";
import { workloadNamespace, type Workload } from "../kubernetes/workload.ts";

/** On a workload or its pod template, "false" keeps every flag away from it. */
export const INJECT_LABEL = "svc.io/inject";
/** On a namespace: "enabled" opts it in (needed in opt-in mode), "disabled" opts it out in any mode. */
export const NAMESPACE_FLAGS_LABEL = "svc.io/flags";

export interface DeliveryPolicy {
  /** svc's own namespace, wherever it is installed (SVC_NAMESPACE). */
  serviceNamespace: string;
  /** More namespaces never delivered to (SVC_DELIVERY_EXCLUDED_NAMESPACES). */
  excludedNamespaces: readonly string[];
  /** Only namespaces labelled svc.io/flags=enabled get flags (SVC_DELIVERY_NAMESPACE_OPT_IN). */
  namespaceOptIn: boolean;
  /** Patterns envVar names must match (`*` any run); empty: any name not refused (SVC_ENV_VAR_NAMES). */
  envVarNames: readonly string[];
}

export const DEFAULT_DELIVERY_POLICY: DeliveryPolicy = {
  serviceNamespace: SYSTEM_NAMESPACE,
  excludedNamespaces: [],
  namespaceOptIn: false,
  envVarNames: [],
};

/** The policy and what it reads of one namespace: its labels (undefined when not known). */
export interface DeliveryScope {
  policy: DeliveryPolicy;
  namespaceLabels?: Readonly<Record<string, string>> | undefined;
  /** ConfigMaps of the namespace that exist and are not svc's, name → owner (configmap-owner.ts). */
  foreignConfigMaps?: ReadonlyMap<string, string> | undefined;
}

export const DEFAULT_DELIVERY_SCOPE: DeliveryScope = { policy: DEFAULT_DELIVERY_POLICY };

/**
 * Why no flag is ever delivered in `namespace`, whatever its labels, or undefined: svc's own
 * namespace (its pods run under svc's ClusterRole), Kubernetes' kube-* namespaces, or one the
 * installer listed. The API refuses a flag there (400).
 */
export function namespaceNeverDelivered(namespace: string, policy: DeliveryPolicy): string | undefined {
  if (namespace === policy.serviceNamespace || namespace === SYSTEM_NAMESPACE)
    return `namespace ${namespace} is svc's own: svc never delivers flags there`;
  if (namespace.startsWith("kube-"))
    return `namespace ${namespace} belongs to Kubernetes: svc never delivers flags to kube-* namespaces`;
  if (policy.excludedNamespaces.includes(namespace))
    return `namespace ${namespace} is excluded from delivery by this installation`;
  return undefined;
}

/** Why the namespace gets no flags now (never, opted out, or not opted in), or undefined. */
export function namespaceExclusion(namespace: string, scope: DeliveryScope): string | undefined {
  const never = namespaceNeverDelivered(namespace, scope.policy);
  if (never !== undefined) return never;
  const label = scope.namespaceLabels?.[NAMESPACE_FLAGS_LABEL];
  if (label === "disabled") return `namespace ${namespace} is labelled ${NAMESPACE_FLAGS_LABEL}=disabled`;
  if (scope.policy.namespaceOptIn && label !== "enabled")
    return `namespace ${namespace} is not labelled ${NAMESPACE_FLAGS_LABEL}=enabled (this installation delivers only to namespaces that opt in)`;
  return undefined;
}

/** Why the workload gets no flags (its namespace, or its own svc.io/inject=false), or undefined. */
export function workloadExclusion(workload: Workload, scope: DeliveryScope): string | undefined {
  const namespace = namespaceExclusion(workloadNamespace(workload), scope);
  if (namespace !== undefined) return namespace;
  const own = workload.object.metadata?.labels?.[INJECT_LABEL];
  const template = workload.object.spec?.template.metadata?.labels?.[INJECT_LABEL];
  if (own === "false" || template === "false") return `the workload is labelled ${INJECT_LABEL}=false`;
  return undefined;
}

/**
 * Why this installation does not deliver the flag's variable, or undefined: its name (the
 * default FLAG_<NAME> included) must match the installer's patterns and be no refused name.
 */
export function envVarPolicyProblem(
  flag: Pick<FeatureFlagResource, "metadata" | "spec">,
  policy: DeliveryPolicy,
): string | undefined {
  const name = flagEnvVarName(flag);
  return name === undefined ? undefined : envVarNameProblem(name, policy.envVarNames);
}

/**
 * Why this installation does not deliver the flag although it is valid, or undefined: its
 * variable's name (envVarPolicyProblem), or its ConfigMap belongs to someone else.
 */
export function policyRefusal(
  flag: Pick<FeatureFlagResource, "metadata" | "spec">,
  scope: DeliveryScope,
): string | undefined {
  return foreignConfigMapRefusal(flag, scope) ?? envVarPolicyProblem(flag, scope.policy);
}

/** Why svc does not write the flag's ConfigMap (it exists and is someone else's), or undefined. */
export function foreignConfigMapRefusal(
  flag: Pick<FeatureFlagResource, "spec">,
  scope: DeliveryScope,
): string | undefined {
  const configMap = flag.spec.delivery.configMap?.configMapName;
  const owner = configMap === undefined ? undefined : scope.foreignConfigMaps?.get(configMap);
  return configMap === undefined || owner === undefined
    ? undefined
    : foreignConfigMapMessage(configMap, owner);
}
