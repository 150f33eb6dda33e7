// The sidecar's own pod labels, from the downward API file the operator mounts
// (SIDECAR_PODINFO_MOUNT): how the sidecar knows whether a rollout's canary step includes its pod.
import { readFile } from "node:fs/promises";

/**
 * The labels of a downward API `metadata.labels` file: one `key="value"` per line, the value
 * quoted as Go quotes strings (label values are letters, digits, "-", "_" and "." only).
 */
export function parsePodLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const match = /^([^=]+)="(.*)"$/.exec(line.trim());
    if (match?.[1] !== undefined && match[2] !== undefined) labels[match[1]] = match[2];
  }
  return labels;
}

/** The labels in the file, or undefined where there is none (a sidecar run outside a pod). */
export async function readPodLabels(path: string): Promise<Record<string, string> | undefined> {
  try {
    return parsePodLabels(await readFile(path, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
