/**
 * How the workload view reads an env var's `valueFrom` (a Kubernetes EnvVarSource, passed through
 * by the API as is): a short phrase naming the reference, never a value.
 */
export function envSource(valueFrom: unknown): string {
  if (typeof valueFrom !== "object" || valueFrom === null) return "from a reference";
  const source = valueFrom as Record<
    string,
    { name?: string; key?: string; fieldPath?: string; resource?: string } | undefined
  >;
  const secret = source["secretKeyRef"];
  if (secret !== undefined) return `from Secret ${secret.name ?? "?"}, key ${secret.key ?? "?"}`;
  const configMap = source["configMapKeyRef"];
  if (configMap !== undefined) return `from ConfigMap ${configMap.name ?? "?"}, key ${configMap.key ?? "?"}`;
  const field = source["fieldRef"];
  if (field !== undefined) return `from field ${field.fieldPath ?? "?"}`;
  const resource = source["resourceFieldRef"];
  if (resource !== undefined) return `from resource ${resource.resource ?? "?"}`;
  return "from a reference";
}
