/**
 * Whose a ConfigMap is. svc writes only ConfigMaps it created: the operator labels every
 * ConfigMap it makes app.kubernetes.io/managed-by=svc (since the first release), so an existing
 * ConfigMap without that label belongs to someone else (ingress-nginx, a Helm chart, a team's
 * app config) and a configMap flag naming it is refused: 409 from the API, Degraded from the
 * operator, which then writes nothing into it (docs/delivery.md, "ConfigMaps svc writes").
 */
import type { ObjectMeta } from "../kubernetes/object-meta.ts";

export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
export const MANAGED_BY_SVC = "svc";
/** The field manager of svc's server-side applies (FIELD_MANAGER of packages/kube). */
const SVC_FIELD_MANAGER = "svc";

export interface ConfigMapOwnership {
  metadata: ObjectMeta & {
    ownerReferences?: readonly { kind: string; name: string; controller?: boolean | undefined }[] | undefined;
  };
}

/**
 * Who owns an existing ConfigMap that svc did not create, as a person recognises it: its
 * controlling owner, its managed-by label, its Helm release, or the managers of its fields;
 * undefined when it is svc's own (or does not exist).
 */
export function foreignConfigMapOwner(configMap: ConfigMapOwnership | undefined): string | undefined {
  if (configMap === undefined) return undefined;
  const { labels = {}, annotations = {}, ownerReferences = [], managedFields = [] } = configMap.metadata;
  // A controller's ConfigMap stays its controller's even if svc's label was forced onto it.
  const controller = ownerReferences.find((o) => o.controller === true && o.kind !== "FeatureFlag");
  if (controller !== undefined) return `${controller.kind} ${controller.name}`;
  const managedBy = labels[MANAGED_BY_LABEL];
  if (managedBy === MANAGED_BY_SVC) return undefined;
  const release = annotations["meta.helm.sh/release-name"];
  if (release !== undefined) return `Helm release ${release}`;
  if (managedBy !== undefined && managedBy !== "") return managedBy;
  const owner = ownerReferences.find((o) => o.kind !== "FeatureFlag");
  if (owner !== undefined) return `${owner.kind} ${owner.name}`;
  const managers = [
    ...new Set(managedFields.flatMap((e) => (e.manager === undefined ? [] : [e.manager]))),
  ].filter((m) => m !== SVC_FIELD_MANAGER);
  return managers.length > 0 ? managers.join(", ") : "someone other than svc";
}

/** The API's and the operator's words for a refused ConfigMap. */
export function foreignConfigMapMessage(name: string, owner: string): string {
  return `ConfigMap ${name} is owned by ${owner}; svc writes only ConfigMaps it created (choose another configMapName)`;
}
