/**
 * Whether `candidate` is older than `current`. resourceVersions are opaque to clients, but every
 * Kubernetes API server backed by etcd hands out increasing integers, and client-go's mutation
 * cache compares them numerically for the same purpose (keeping a write's result from being
 * replaced by a stale watch event). When either is not an integer nothing is called older, so
 * the newest arrival wins as it would without the comparison.
 */
export function isOlderVersion(candidate: string | undefined, current: string | undefined): boolean {
  const a = parseVersion(candidate);
  const b = parseVersion(current);
  return a !== undefined && b !== undefined && a < b;
}

function parseVersion(version: string | undefined): bigint | undefined {
  return version !== undefined && /^[0-9]{1,30}$/.test(version) ? BigInt(version) : undefined;
}
