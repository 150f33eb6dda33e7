import { ApiException, CoreV1Api, type KubeConfig } from "@kubernetes/client-node";

/** Creates the namespace unless it exists. */
export async function ensureNamespace(kc: KubeConfig, name: string): Promise<void> {
  try {
    await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
  } catch (error) {
    if (!(error instanceof ApiException && error.code === 409)) throw error;
  }
}
