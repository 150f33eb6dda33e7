import type { KubeConfig } from "@kubernetes/client-node";
import { ObjectWriter } from "./apply.ts";

/** Creates the namespace unless it exists. */
export async function ensureNamespace(kc: KubeConfig, name: string): Promise<void> {
  const writer = new ObjectWriter(kc, { timeoutMs: 10_000 });
  try {
    await writer.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
  } finally {
    await writer.close();
  }
}
