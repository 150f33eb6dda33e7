/**
 * The FeatureFlag object a flag definition is stored as. Free of TypeBox at run time, so the
 * dashboard shows a flag's YAML built by the same function the API server writes it with.
 */
import { API_GROUP_VERSION, FEATURE_FLAG } from "../vocabulary.ts";
import type { FeatureFlagSpec } from "./flag.ts";
import type { FeatureFlagResource } from "./flag-resource.ts";

/** The fields of a flag's definition, in the order a stored spec lists them (status aside). */
export const SPEC_FIELDS = [
  "type",
  "defaultValue",
  "description",
  "enabled",
  "delivery",
  "key",
  "variants",
  "defaultVariant",
  "targeting",
  "evaluators",
  "metadata",
] as const;

export type SpecFields = Pick<FeatureFlagSpec, (typeof SPEC_FIELDS)[number]>;

/** The targeting fields, in the order a stored spec lists them; absent ones stay absent. */
const TARGETING_FIELDS = [
  "key",
  "variants",
  "defaultVariant",
  "targeting",
  "evaluators",
  "metadata",
] as const;

export function specPart(body: SpecFields): SpecFields {
  const { type, defaultValue, description, enabled, delivery } = body;
  const part: SpecFields = {
    type,
    defaultValue,
    ...(description === undefined ? {} : { description }),
    ...(enabled === undefined ? {} : { enabled }),
    delivery,
  };
  for (const field of TARGETING_FIELDS) {
    if (body[field] !== undefined) Object.assign(part, { [field]: body[field] });
  }
  return part;
}

/** An empty description is stored as none, so GET → PUT never rewrites an unchanged flag. */
export function storedSpec(body: SpecFields, enabled: boolean): FeatureFlagSpec {
  const { description, ...rest } = specPart(body);
  return { ...rest, ...(description ? { description } : {}), enabled };
}

/** The FeatureFlag object that POST creates in the target cluster. */
export function flagResource(
  body: SpecFields & {
    name: string;
    namespace: string;
    enabled?: boolean | undefined;
  },
): FeatureFlagResource {
  return {
    apiVersion: API_GROUP_VERSION,
    kind: FEATURE_FLAG.kind,
    metadata: { name: body.name, namespace: body.namespace },
    spec: storedSpec(body, body.enabled ?? true),
  };
}
