import { describeGrant, type Grant } from "@svc/core/browser";

/** A user's grants, one line each ("editor in cluster staging, namespace shop-*"); "none" when empty. */
export function GrantList({ grants, label }: { grants: readonly Grant[]; label?: string }) {
  if (grants.length === 0) return <span className="hint">none</span>;
  return (
    <ul className="grant-list" aria-label={label}>
      {grants.map((grant, i) => (
        <li key={i}>{describeGrant(grant)}</li>
      ))}
    </ul>
  );
}
