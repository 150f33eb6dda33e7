import {
  ApiextensionsV1Api,
  KubernetesObjectApi,
  loadYaml,
  PatchStrategy,
  type KubeConfig,
  type V1CustomResourceDefinition,
} from "@kubernetes/client-node";
import { allCrds, renderCrdYaml, type CustomResourceDefinition } from "@svc/core";
import { waitFor } from "./wait.ts";

/** The field manager of everything svc writes with server-side apply. */
export const FIELD_MANAGER = "svc";

/**
 * Applies the svc CRDs (server-side apply, so a re-install is a no-op and an upgrade changes
 * only what differs) and waits until the API server serves them.
 */
export async function installCrds(kc: KubeConfig, timeoutMs = 30_000): Promise<void> {
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const extensions = kc.makeApiClient(ApiextensionsV1Api);
  const definitions: CustomResourceDefinition[] = allCrds();
  for (const definition of definitions) {
    // client-node serializes typed objects through its models, which name JSON Schema keywords
    // differently (`_enum`, `xKubernetesValidations`) and would drop ours; loadYaml builds the
    // model from the very YAML that is checked in under deploy/crds.
    const model = loadYaml<V1CustomResourceDefinition>(renderCrdYaml(definition));
    await objects.patch(model, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
  }
  await Promise.all(
    definitions.map((definition) =>
      waitFor(
        async () => {
          const current = await extensions.readCustomResourceDefinition({ name: definition.metadata.name });
          return (
            current.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") === true
          );
        },
        (established) => established,
        { what: `CRD ${definition.metadata.name} established`, timeoutMs },
      ),
    ),
  );
}
