import { isEnabled, type FeatureFlagResource } from "@svc/core";

/**
 * The audited fields of a flag: what a reader of the log wants to see change. The audit log's
 * before/after of a flag write and the webhooks' details of a flag change are both made of
 * these, through changedFields (audit/event.ts).
 */
export function flagAuditFields(resource: FeatureFlagResource): Record<string, unknown> {
  const { type, defaultValue, description, delivery, key, variants, defaultVariant, targeting, evaluators } =
    resource.spec;
  const targetingFields = { key, variants, defaultVariant, targeting, evaluators };
  return {
    type,
    defaultValue,
    description,
    enabled: isEnabled(resource.spec),
    delivery,
    ...Object.fromEntries(Object.entries(targetingFields).filter(([, value]) => value !== undefined)),
  };
}
