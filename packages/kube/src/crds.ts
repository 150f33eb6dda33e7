import type { KubeConfig } from "@kubernetes/client-node";
import { allCrds, type CustomResourceDefinition } from "@svc/core";
import { ObjectWriter } from "./apply.ts";
import { waitFor } from "./wait.ts";

/** A bound on each call of an install. */
const CALL_TIMEOUT_MS = 10_000;

interface Conditions {
  status?: { conditions?: readonly { type: string; status: string }[] };
}

/**
 * Applies the svc CRDs (server-side apply, so a re-install is a no-op and an upgrade changes
 * only what differs) and waits until the API server serves them.
 */
export async function installCrds(kc: KubeConfig, timeoutMs = 30_000): Promise<void> {
  const writer = new ObjectWriter(kc, { timeoutMs: CALL_TIMEOUT_MS });
  try {
    const definitions: CustomResourceDefinition[] = allCrds();
    // The definitions as they are, the very objects rendered to deploy/crds.
    for (const definition of definitions) await writer.apply({ ...definition }, { force: true });
    await Promise.all(
      definitions.map((definition) =>
        waitFor(
          async () => {
            const current = await writer.read<Conditions>(definition);
            return (
              current?.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ===
              true
            );
          },
          (established) => established,
          { what: `CRD ${definition.metadata.name} established`, timeoutMs },
        ),
      ),
    );
  } finally {
    await writer.close();
  }
}
