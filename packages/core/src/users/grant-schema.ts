/**
 * The TypeBox schema of a user's grants (grants.ts), for the API's request bodies and OpenAPI.
 * Kept apart from grants.ts so the dashboard's bundle has the rules without TypeBox.
 */
import Type from "typebox";
import {
  GRANT_CLUSTERS_MAX,
  GRANT_LABELS_MAX,
  GRANT_NAMESPACES_MAX,
  GRANTS_MAX,
  NAMESPACE_PATTERN,
  NAMESPACE_PATTERN_MAX,
  grantsProblem,
  type Grant,
} from "./grants.ts";
import { DNS1123_LABEL, DNS1123_LABEL_MAX, DNS1123_LABEL_MESSAGE } from "../schema/names.ts";
import { labelMap } from "../schema/schema.ts";
import { fieldPath, schemaErrors, type Validated } from "../schema/validation.ts";

export const GrantSchema = Type.Object(
  {
    role: Type.Enum(["admin", "editor", "viewer"], { description: "admin, editor or viewer." }),
    clusters: Type.Optional(
      Type.Array(
        Type.String({
          maxLength: DNS1123_LABEL_MAX,
          pattern: DNS1123_LABEL,
          errorMessage: DNS1123_LABEL_MESSAGE,
        }),
        { maxItems: GRANT_CLUSTERS_MAX, description: "Cluster ids. Omitted: every cluster." },
      ),
    ),
    clusterLabels: Type.Optional(
      labelMap({
        maxProperties: GRANT_LABELS_MAX,
        description: "Labels the cluster's ClusterConnection must all carry.",
      }),
    ),
    namespaces: Type.Optional(
      Type.Array(
        Type.String({
          maxLength: NAMESPACE_PATTERN_MAX,
          pattern: NAMESPACE_PATTERN,
          errorMessage: "must be a namespace name, where '*' stands for any characters (e.g. shop-*)",
        }),
        {
          maxItems: GRANT_NAMESPACES_MAX,
          description: "Namespace names or patterns with '*'. Omitted: every namespace.",
        },
      ),
    ),
  },
  { additionalProperties: false, description: "A role over a scope of clusters and namespaces." },
);

export const GrantsSchema = Type.Array(GrantSchema, {
  maxItems: GRANTS_MAX,
  description: `At most ${GRANTS_MAX} grants of a role over clusters and namespaces.`,
});

/** The schema and the semantic rules of grantsProblem, with every problem naming its field. */
export function validateGrants(input: unknown, field = "grants"): Validated<Grant[]> {
  const errors = schemaErrors(GrantsSchema, input).map((e) => ({
    ...e,
    field: e.field === "" ? field : fieldPath(field, e.field),
  }));
  if (errors.length > 0) return { ok: false, errors };
  const grants = input as Grant[];
  const problem = grantsProblem(grants);
  if (problem !== undefined) return { ok: false, errors: [{ field: "", message: problem }] };
  return { ok: true, value: grants };
}
