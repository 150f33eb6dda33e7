/**
 * The REST representation of a flag (DESIGN.md §4 Flags) and the request bodies that create and
 * replace one: SPEC.md's fields, plus enabled, resourceVersion, createdAt, updatedAt and status.
 * The spec part reuses FeatureFlagSpec and validateFlagSpec, so REST and CRD rules are one.
 */
import Type from "typebox";
import { isEnabled } from "./values.ts";
import { Delivery, FeatureFlagSpec, FLAG_PHASES, FLAG_TYPES, FlagTarget, validateFlagSpec } from "./flag.ts";
import type { FeatureFlagResource } from "./flag-resource.ts";
import { statusIsCurrent } from "./flag-status.ts";
import { specPart, storedSpec, type SpecFields } from "./flag-manifest.ts";
import { withDefaultValue } from "./flag-defaults.ts";
import type { ManagedFieldsEntry } from "../kubernetes/object-meta.ts";
import { dns1123Label } from "../schema/schema.ts";
import { schemaErrors, type FieldError, type Validated } from "../schema/validation.ts";

const identity = {
  name: dns1123Label("Flag name, unique in its namespace."),
  namespace: dns1123Label("Namespace of the flag in its cluster."),
  clusterId: dns1123Label("Id of the cluster that holds the flag."),
};

export const FlagStatusView = Type.Object({
  phase: Type.Enum([...FLAG_PHASES]),
  targets: Type.Array(FlagTarget),
  message: Type.String(),
});

const { key, variants, defaultVariant, metadata } = FeatureFlagSpec.properties;
/** Any JSON object, written out whole (a response schema without properties would drop them all). */
const anyObject = { type: "object", additionalProperties: true } as const;
/** The targeting fields: in a representation only when the flag has them (SPEC.md's shape otherwise). */
const targetingFields = {
  key,
  variants,
  defaultVariant,
  targeting: Type.Optional(
    Type.Unsafe<Record<string, unknown>>({ ...anyObject, description: "A flagd JSON Logic rule." }),
  ),
  evaluators: Type.Optional(
    Type.Unsafe<Record<string, Record<string, unknown>>>({
      type: "object",
      additionalProperties: anyObject,
      description: 'Rules the targeting refers to with {"$ref": name}.',
    }),
  ),
  metadata,
};

/**
 * A flag definition's fields in a request body: with variants, defaultValue may be left out
 * (it is then the default variant's value, withDefaultValue).
 */
export const definitionFields = {
  ...FeatureFlagSpec.properties,
  defaultValue: Type.Optional(FeatureFlagSpec.properties.defaultValue),
};

export const FlagView = Type.Object(
  {
    name: Type.String(),
    namespace: Type.String(),
    clusterId: Type.String(),
    type: Type.Enum([...FLAG_TYPES]),
    defaultValue: Type.String(),
    description: Type.String(),
    delivery: Delivery,
    ...targetingFields,
    enabled: Type.Boolean(),
    resourceVersion: Type.String({ description: "Send it back on PUT: a stale one is refused with 409." }),
    createdAt: Type.String({ format: "date-time" }),
    updatedAt: Type.String({ format: "date-time", description: "Last change of the flag's definition." }),
    status: FlagStatusView,
  },
  { additionalProperties: false },
);
export type FlagView = Type.Static<typeof FlagView>;

/** POST /api/v1/flags. New flags are enabled unless `enabled: false` is sent. */
export const FlagCreateBody = Type.Object(
  { ...identity, ...definitionFields },
  { additionalProperties: false },
);
export type FlagCreateBody = Type.Static<typeof FlagCreateBody>;
/** A create body with its defaultValue settled (given, or the default variant's). */
export type FlagCreate = FlagCreateBody & { defaultValue: string };

const ignored = (what: string) => Type.Optional(Type.Unknown({ description: `${what} Read-only: ignored.` }));

/**
 * PUT /api/v1/flags/{namespace}/{name}: a flag definition. A FlagView is accepted as it was
 * returned (GET, edit, PUT): identity fields must equal the path, resourceVersion guards
 * against lost updates, the other read-only fields are ignored. Without `enabled` the flag
 * keeps its state.
 */
export const FlagUpdateBody = Type.Object(
  {
    name: Type.Optional(identity.name),
    namespace: Type.Optional(identity.namespace),
    clusterId: Type.Optional(identity.clusterId),
    ...definitionFields,
    resourceVersion: Type.Optional(
      Type.String({ maxLength: 128, description: "The version edited; a stale one is refused with 409." }),
    ),
    createdAt: ignored("Creation time."),
    updatedAt: ignored("Last change."),
    status: ignored("Delivery status."),
  },
  { additionalProperties: false },
);
export type FlagUpdateBody = Type.Static<typeof FlagUpdateBody>;
/** An update body with its defaultValue settled (given, or the default variant's). */
export type FlagUpdate = FlagUpdateBody & { defaultValue: string };

/** The optional body of POST .../toggle: sets the state (idempotent) instead of flipping it. */
export const FlagToggleBody = Type.Object(
  { enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type FlagToggleBody = Type.Static<typeof FlagToggleBody>;

/**
 * The spec's own rules (value parses as its type, label keys, variants and targeting) on a body
 * of the right shape, after its defaultValue is settled. `prefix` names where the definition sits.
 */
export function withSpecRules<T extends Omit<SpecFields, "defaultValue"> & { defaultValue?: string }>(
  body: T,
  prefix = "",
): Validated<T & { defaultValue: string }> {
  const settled = withDefaultValue(body, prefix);
  if (!settled.ok) return settled;
  const spec = validateFlagSpec(specPart(settled.value), prefix);
  return spec.ok ? settled : spec;
}

export function validateFlagCreate(input: unknown): Validated<FlagCreate> {
  const shape = schemaErrors(FlagCreateBody, input);
  return shape.length > 0 ? { ok: false, errors: shape } : withSpecRules(input as FlagCreateBody);
}

/** The flag a PUT addresses (its path and `clusterId` query). */
export interface FlagAddress {
  clusterId: string;
  namespace: string;
  name: string;
}

export function validateFlagUpdate(input: unknown, address: FlagAddress): Validated<FlagUpdate> {
  const shape = schemaErrors(FlagUpdateBody, input);
  if (shape.length > 0) return { ok: false, errors: shape };
  const body = input as FlagUpdateBody;
  const identity: FieldError[] = (["name", "namespace", "clusterId"] as const)
    .filter((field) => body[field] !== undefined && body[field] !== address[field])
    .map((field) => ({
      field,
      message: `is ${address[field]} in ${field === "clusterId" ? "the clusterId query" : "the path"}; a flag cannot be moved or renamed (create a new one)`,
    }));
  const result = withSpecRules(body);
  const errors = [...identity, ...(result.ok ? [] : result.errors)];
  return errors.length > 0 ? { ok: false, errors } : result;
}

/** The spec a PUT stores: the body's definition; `enabled` kept when the body omits it. */
export function flagUpdate(existing: Pick<FeatureFlagResource, "spec">, body: FlagUpdate): FeatureFlagSpec {
  return storedSpec(body, body.enabled ?? isEnabled(existing.spec));
}

/** The spec a toggle stores: flipped, or set to `enabled` when the body says so. */
export function flagToggle(
  existing: Pick<FeatureFlagResource, "spec">,
  body: FlagToggleBody = {},
): FeatureFlagSpec {
  return { ...existing.spec, enabled: body.enabled ?? !isEnabled(existing.spec) };
}

function isoTimestamp(value: string | Date | undefined): string | undefined {
  if (value === undefined) return undefined;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** A managedFields entry of a writer of the spec (status and finalizer writes excepted). */
export const touchesSpec = (entry: ManagedFieldsEntry) =>
  (entry.subresource ?? "") === "" && typeof entry.fieldsV1 === "object" && "f:spec" in entry.fieldsV1;

/**
 * The last change of the flag's definition: the newest managedFields time of a manager that
 * owns spec fields (the API, kubectl, a GitOps tool), so edits made outside svc count too,
 * while status writes and finalizers do not. The creation time when none is known.
 */
export function flagUpdatedAt(metadata: FeatureFlagResource["metadata"]): string {
  const times = (metadata.managedFields ?? [])
    .filter(touchesSpec)
    .flatMap((entry) => isoTimestamp(entry.time) ?? []);
  const created = isoTimestamp(metadata.creationTimestamp) ?? "";
  return [created, ...times].reduce((latest, t) => (t > latest ? t : latest));
}

function statusView(resource: FeatureFlagResource): FlagView["status"] {
  const status = resource.status ?? {};
  const targets = status.targets ?? [];
  if (status.phase === undefined || !statusIsCurrent(resource)) {
    const message = "waiting for the operator to deliver the latest change";
    return { phase: "Pending", targets, message };
  }
  return { phase: status.phase, targets, message: status.message ?? "" };
}

/** The targeting fields the flag has (none for a flag with only a defaultValue). */
function targetingPart(spec: FeatureFlagResource["spec"]): Partial<FlagView> {
  const part: Partial<FlagView> = {};
  for (const field of Object.keys(targetingFields) as (keyof typeof targetingFields)[]) {
    if (spec[field] !== undefined) Object.assign(part, { [field]: spec[field] });
  }
  return part;
}

export function flagView(resource: FeatureFlagResource, clusterId: string): FlagView {
  const { metadata, spec } = resource;
  return {
    name: metadata.name,
    namespace: metadata.namespace,
    clusterId,
    type: spec.type,
    defaultValue: spec.defaultValue,
    description: spec.description ?? "",
    delivery: spec.delivery,
    ...targetingPart(spec),
    enabled: isEnabled(spec),
    resourceVersion: metadata.resourceVersion ?? "",
    createdAt: isoTimestamp(metadata.creationTimestamp) ?? "",
    updatedAt: flagUpdatedAt(metadata),
    status: statusView(resource),
  };
}
