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

const NAME_MAX = 63;

/** FNV-1a (32 bits) of a text, as 8 hex digits: a short, stable suffix; not a security hash. */
export function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/**
 * The FeatureFlag name of a flagd key (docs/api-flags-clusters.md, "Import and export"): the key
 * lower-cased, every run of characters a name cannot hold turned into '-', trimmed; when that
 * changed the key, a hash of the key is appended (cut to fit 63 characters), so that two keys
 * differing only in case or punctuation never share a name. The key itself stays in spec.key.
 */
export function flagNameForKey(key: string): string {
  const base = key
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  if (base === key && base.length <= NAME_MAX) return base;
  const suffix = shortHash(key);
  const head = base.slice(0, NAME_MAX - suffix.length - 1).replace(/-+$/, "");
  return head === "" ? `flag-${suffix}` : `${head}-${suffix}`;
}
