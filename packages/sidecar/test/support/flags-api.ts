// Writes FeatureFlags through the Kubernetes API, as kubectl or the REST API would.
import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, API_VERSION, FEATURE_FLAG, type FlagType } from "@svc/core";

export interface FlagWriter {
  create: (name: string, type: FlagType, value: string, enabled?: boolean) => Promise<void>;
  /** A flag with more of the spec: key, variants, defaultVariant, targeting, evaluators, metadata. */
  createWith: (name: string, type: FlagType, value: string, more: Record<string, unknown>) => Promise<void>;
  setValue: (name: string, value: string) => Promise<void>;
  /** Sets one field of the spec (`targeting`, `variants`, ...). */
  setSpec: (name: string, field: string, value: unknown) => Promise<void>;
  setEnabled: (name: string, enabled: boolean) => Promise<void>;
  remove: (name: string) => Promise<void>;
}

export function flagWriter(kc: KubeConfig, namespace: string): FlagWriter {
  const api = kc.makeApiClient(CustomObjectsApi);
  const where = { group: API_GROUP, version: API_VERSION, namespace, plural: FEATURE_FLAG.plural };
  const patch = async (name: string, op: { op: string; path: string; value: unknown }) => {
    await api.patchNamespacedCustomObject({ ...where, name, body: [op] });
  };
  const create = async (name: string, spec: Record<string, unknown>) => {
    await api.createNamespacedCustomObject({
      ...where,
      body: {
        apiVersion: API_GROUP_VERSION,
        kind: FEATURE_FLAG.kind,
        metadata: { name },
        spec: { ...spec, delivery: { sidecar: { selector: { matchLabels: { app: "web" } } } } },
      },
    });
  };
  return {
    createWith: (name, type, value, more) => create(name, { type, defaultValue: value, ...more }),
    create: (name, type, value, enabled = true) => create(name, { type, defaultValue: value, enabled }),
    setValue: (name, value) => patch(name, { op: "replace", path: "/spec/defaultValue", value }),
    setSpec: (name, field, value) => patch(name, { op: "add", path: `/spec/${field}`, value }),
    setEnabled: (name, enabled) => patch(name, { op: "add", path: "/spec/enabled", value: enabled }),
    remove: async (name) => {
      await api.deleteNamespacedCustomObject({ ...where, name });
    },
  };
}
