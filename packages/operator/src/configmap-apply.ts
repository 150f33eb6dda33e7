// What to do with one ConfigMap that configMap flags write (planConfigMaps of packages/core
// decides its keys and owners): nothing when it already holds them, else apply exactly svc's
// keys; when no flag writes it any more, withdraw svc's keys, or delete it if svc alone made it.
// Nothing at all to a ConfigMap svc did not create (foreignConfigMapOwner).
import {
  API_GROUP_VERSION,
  FEATURE_FLAG,
  foreignConfigMapOwner,
  MANAGED_BY_LABEL,
  type ConfigMapPlan,
  type ObjectMeta,
} from "@svc/core";
import { FIELD_MANAGER, type ApplyConfiguration } from "@svc/kube";

export { MANAGED_BY_LABEL };

export interface ConfigMapJson {
  metadata: ObjectMeta & {
    ownerReferences?: readonly { kind: string; name: string; uid: string }[] | undefined;
  };
  data?: Record<string, string> | undefined;
}

export type ConfigMapAction =
  | { action: "none" }
  | { action: "apply"; configuration: ApplyConfiguration }
  | { action: "delete"; resourceVersion: string };

interface FieldsV1 {
  [field: string]: FieldsV1 | undefined;
}

/** The data keys svc's field manager set, from managedFields. */
export function svcOwnedKeys(current: ConfigMapJson): string[] {
  const entries = (current.metadata.managedFields ?? []).filter(
    (e) => e.manager === FIELD_MANAGER && e.operation === "Apply",
  );
  return entries.flatMap((e) =>
    Object.keys((e.fieldsV1 as FieldsV1 | undefined)?.["f:data"] ?? {})
      .filter((f) => f.startsWith("f:"))
      .map((f) => f.slice(2)),
  );
}

function desiredConfiguration(plan: ConfigMapPlan): ApplyConfiguration {
  const owners = plan.owners.flatMap((o) =>
    o.uid === undefined
      ? []
      : [{ apiVersion: API_GROUP_VERSION, kind: FEATURE_FLAG.kind, name: o.name, uid: o.uid }],
  );
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: plan.configMapName,
      namespace: plan.namespace,
      labels: { [MANAGED_BY_LABEL]: "svc" },
      // The garbage collector deletes the ConfigMap with its last owning flag.
      ...(owners.length === 0 ? {} : { ownerReferences: owners }),
    },
    ...(Object.keys(plan.data).length === 0 ? {} : { data: plan.data }),
  };
}

function inSync(plan: ConfigMapPlan, current: ConfigMapJson): boolean {
  const data = current.data ?? {};
  const wanted = Object.entries(plan.data);
  if (!wanted.every(([key, value]) => Object.hasOwn(data, key) && data[key] === value)) return false;
  if (svcOwnedKeys(current).some((key) => !Object.hasOwn(plan.data, key))) return false;
  if (current.metadata.labels?.[MANAGED_BY_LABEL] !== "svc") return false;
  const owners = (current.metadata.ownerReferences ?? [])
    .filter((o) => o.kind === FEATURE_FLAG.kind)
    .map((o) => o.uid)
    .sort();
  const wantedOwners = plan.owners.flatMap((o) => o.uid ?? []).sort();
  return owners.join(",") === wantedOwners.join(",");
}

export function configMapAction(
  namespace: string,
  name: string,
  plan: ConfigMapPlan | undefined,
  current: ConfigMapJson | undefined,
): ConfigMapAction {
  // Someone else's ConfigMap: not one byte of it is svc's to write (the flag is Degraded).
  if (foreignConfigMapOwner(current) !== undefined) return { action: "none" };
  if (plan !== undefined) {
    return current !== undefined && inSync(plan, current)
      ? { action: "none" }
      : { action: "apply", configuration: desiredConfiguration(plan) };
  }
  if (current === undefined) return { action: "none" };
  const managers = new Set((current.metadata.managedFields ?? []).map((e) => e.manager));
  if (!managers.has(FIELD_MANAGER)) return { action: "none" };
  if (managers.size === 1 && current.metadata.resourceVersion !== undefined)
    return { action: "delete", resourceVersion: current.metadata.resourceVersion };
  // Someone else also wrote into it: keep it, withdraw only what svc stated.
  return {
    action: "apply",
    configuration: { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace } },
  };
}
