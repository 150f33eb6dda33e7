/**
 * The key a flag is evaluated and served under (OFREP, `$flagd.flagKey`, fractional buckets):
 * `spec.key`, else its name. The sidecar serves every flag of a namespace by this key, so two
 * flags of a namespace must not share one. No TypeBox and no Node built-ins.
 */

export interface KeyedFlag {
  metadata: { name: string; namespace: string };
  spec: { key?: string | undefined };
}

export function evaluationKey(flag: KeyedFlag): string {
  return flag.spec.key ?? flag.metadata.name;
}

/**
 * Why `candidate` cannot be stored beside `namespaceFlags` (the flags of its namespace, itself
 * possibly among them): another flag is evaluated under the same key. Undefined when none is.
 */
export function evaluationKeyConflict(
  candidate: KeyedFlag,
  namespaceFlags: readonly KeyedFlag[],
): string | undefined {
  const key = evaluationKey(candidate);
  const holder = namespaceFlags.find(
    (flag) =>
      flag.metadata.name !== candidate.metadata.name &&
      flag.metadata.namespace === candidate.metadata.namespace &&
      evaluationKey(flag) === key,
  );
  if (holder === undefined) return undefined;
  const field = candidate.spec.key === undefined ? "name" : "key";
  return `${field}: flag ${holder.metadata.namespace}/${holder.metadata.name} is already evaluated under the key ${JSON.stringify(key)}; two flags of a namespace cannot share a key`;
}
