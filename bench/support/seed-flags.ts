// Flags written straight to a kube-apiserver for the API benchmarks, in namespaces bench-0, bench-1, ...
import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, API_VERSION, FEATURE_FLAG } from "@svc/core";
import { ensureNamespace } from "@svc/kube";

export const benchFlagSpec = (i: number) => ({
  type: "integer",
  defaultValue: String(i),
  description: `bench flag ${i}`,
  delivery: { envVar: { selector: { matchLabels: { app: `app-${i % 20}` } } } },
});

export function flagsTarget(namespace: string) {
  return { group: API_GROUP, version: API_VERSION, namespace, plural: FEATURE_FLAG.plural };
}

/**
 * Flags flag-<from> .. flag-<count - 1>, `perNamespace` to a namespace, 16 writes at a time
 * (`from` > 0 grows a list seeded before).
 */
export async function seedFlags(
  kc: KubeConfig,
  count: number,
  perNamespace: number,
  from = 0,
): Promise<void> {
  const objects = kc.makeApiClient(CustomObjectsApi);
  const namespaces = Math.ceil(count / perNamespace);
  for (let n = Math.floor(from / perNamespace); n < namespaces; n++) await ensureNamespace(kc, `bench-${n}`);
  let next = from;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      await objects.createNamespacedCustomObject({
        ...flagsTarget(`bench-${Math.floor(i / perNamespace)}`),
        body: {
          apiVersion: API_GROUP_VERSION,
          kind: FEATURE_FLAG.kind,
          metadata: { name: `flag-${i}` },
          spec: benchFlagSpec(i),
        },
      });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}
