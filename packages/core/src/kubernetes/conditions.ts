/**
 * metav1.Condition bookkeeping as Kubernetes API conventions define it: one condition per
 * type, and lastTransitionTime moves only when the condition's status changes.
 */
import type { Condition } from "../schema/schema.ts";

/** metav1.Time: RFC 3339 in whole seconds. */
export function metaTime(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** `conditions` with `next` in place of the condition of its type (other types kept, in order). */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  next: Omit<Condition, "lastTransitionTime">,
  now: Date,
): Condition[] {
  const before = conditions?.find((c) => c.type === next.type);
  const lastTransitionTime = before?.status === next.status ? before.lastTransitionTime : metaTime(now);
  return [...(conditions ?? []).filter((c) => c.type !== next.type), { ...next, lastTransitionTime }];
}
