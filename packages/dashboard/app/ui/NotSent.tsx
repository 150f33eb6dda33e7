/**
 * Why a form sends nothing although no field shows a problem: what the API's schema of its body
 * (compiled ahead of time, @svc/core/browser) refuses, as "field: reason". Nothing when empty.
 */
export function NotSent({ reasons }: { reasons: readonly string[] }) {
  if (reasons.length === 0) return null;
  return (
    <p className="error" role="alert">
      Not sent: {reasons.join("; ")}
    </p>
  );
}
