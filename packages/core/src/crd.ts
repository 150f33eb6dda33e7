import type { TSchema } from "typebox";
import { stringify } from "yaml";
import { ClusterConnectionSpec, ClusterConnectionStatus } from "./clusters/cluster-connection.ts";
import { FeatureFlagSpec, FeatureFlagStatus } from "./flags/flag.ts";
import { FLAG_ROLLOUT, FlagRolloutSpec, FlagRolloutStatus } from "./rollouts/flag-rollout.ts";
import { API_GROUP, API_GROUP_VERSION, API_VERSION, FEATURE_FLAG } from "./vocabulary.ts";
import { DNS1123_LABEL, DNS1123_LABEL_MAX } from "./schema/names.ts";

export { API_GROUP, API_GROUP_VERSION, API_VERSION, FEATURE_FLAG };
export const CLUSTER_CONNECTION = {
  kind: "ClusterConnection",
  plural: "clusterconnections",
  singular: "clusterconnection",
} as const;

/** The part of apiextensions.k8s.io/v1 JSONSchemaProps that our schemas use. */
export interface JSONSchemaProps {
  [keyword: string]: unknown;
  type?: string;
  properties?: Record<string, JSONSchemaProps>;
  items?: JSONSchemaProps;
  additionalProperties?: JSONSchemaProps;
}

export interface CustomResourceDefinition {
  apiVersion: "apiextensions.k8s.io/v1";
  kind: "CustomResourceDefinition";
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    group: string;
    scope: "Namespaced";
    names: {
      kind: string;
      listKind: string;
      plural: string;
      singular: string;
      shortNames: string[];
      categories: string[];
    };
    versions: {
      name: string;
      served: boolean;
      storage: boolean;
      subresources: { status: Record<string, never> };
      additionalPrinterColumns: {
        name: string;
        type: string;
        jsonPath: string;
        description?: string;
        priority?: number;
      }[];
      schema: { openAPIV3Schema: JSONSchemaProps };
    }[];
  };
}

/** JSON Schema keywords that a structural CRD schema accepts and that we use. */
const STRUCTURAL_KEYWORDS = [
  "type",
  "description",
  "required",
  "enum",
  "pattern",
  "maxLength",
  "minLength",
  "minimum",
  "maximum",
  "maxItems",
  "minItems",
  "maxProperties",
  "minProperties",
  "format",
  "default",
  "x-kubernetes-validations",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-preserve-unknown-fields",
];

/**
 * Turns one of our schemas into a structural CRD schema: keeps the keywords above, drops the ones
 * Kubernetes refuses or states otherwise (additionalProperties: false: the API server prunes or,
 * with strict field validation, rejects unknown fields; uniqueItems: x-kubernetes-list-type "set"
 * says it), and our TypeScript-only errorMessage.
 */
export function toStructuralSchema(schema: TSchema): JSONSchemaProps {
  const source = schema as Record<string, unknown>;
  const out: JSONSchemaProps = {};
  for (const keyword of STRUCTURAL_KEYWORDS) {
    if (source[keyword] !== undefined) out[keyword] = source[keyword];
  }
  if (out.type === undefined && Array.isArray(source["enum"])) out.type = "string";
  const properties = source["properties"] as Record<string, TSchema> | undefined;
  if (properties) {
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([name, child]) => [name, toStructuralSchema(child)]),
    );
  }
  if (typeof source["items"] === "object") out.items = toStructuralSchema(source["items"] as TSchema);
  if (typeof source["additionalProperties"] === "object") {
    out.additionalProperties = toStructuralSchema(source["additionalProperties"] as TSchema);
  }
  return out;
}

interface ResourceNames {
  kind: string;
  plural: string;
  singular: string;
}

function crd(
  names: ResourceNames,
  shortNames: string[],
  description: string,
  spec: TSchema,
  status: TSchema,
  columns: CustomResourceDefinition["spec"]["versions"][number]["additionalPrinterColumns"],
): CustomResourceDefinition {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${names.plural}.${API_GROUP}`, labels: { "app.kubernetes.io/part-of": "svc" } },
    spec: {
      group: API_GROUP,
      scope: "Namespaced",
      names: { ...names, listKind: `${names.kind}List`, shortNames, categories: ["svc"] },
      versions: [
        {
          name: API_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            ...columns,
            { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
          ],
          schema: {
            openAPIV3Schema: {
              type: "object",
              description,
              required: ["spec"],
              properties: {
                apiVersion: { type: "string" },
                kind: { type: "string" },
                metadata: {
                  type: "object",
                  properties: {
                    name: { type: "string", maxLength: DNS1123_LABEL_MAX, pattern: DNS1123_LABEL },
                  },
                },
                spec: toStructuralSchema(spec),
                status: toStructuralSchema(status),
              },
            },
          },
        },
      ],
    },
  };
}

export function featureFlagCrd(): CustomResourceDefinition {
  return crd(
    FEATURE_FLAG,
    ["ff", "flag"],
    "A feature flag whose value the svc operator delivers to matching workloads.",
    FeatureFlagSpec,
    FeatureFlagStatus,
    [
      { name: "Type", type: "string", jsonPath: ".spec.type" },
      { name: "Value", type: "string", jsonPath: ".spec.defaultValue" },
      { name: "Enabled", type: "boolean", jsonPath: ".spec.enabled" },
      { name: "Delivery", type: "string", jsonPath: ".status.delivery" },
      { name: "Phase", type: "string", jsonPath: ".status.phase" },
    ],
  );
}

export function clusterConnectionCrd(): CustomResourceDefinition {
  return crd(
    CLUSTER_CONNECTION,
    ["cc"],
    "A Kubernetes cluster managed by svc. The metadata.name is the cluster id.",
    ClusterConnectionSpec,
    ClusterConnectionStatus,
    [
      { name: "Display Name", type: "string", jsonPath: ".spec.displayName" },
      { name: "API Server", type: "string", jsonPath: ".spec.apiServer" },
      { name: "Phase", type: "string", jsonPath: ".status.phase" },
      { name: "Version", type: "string", jsonPath: ".status.kubernetesVersion" },
      { name: "Workloads", type: "integer", jsonPath: ".status.discoveredWorkloads" },
    ],
  );
}

export function flagRolloutCrd(): CustomResourceDefinition {
  return crd(
    FLAG_ROLLOUT,
    ["fro"],
    "A change to one flag applied wave by wave across clusters, health-gated and rolled back on its own (docs/safe-changes.md). Lives in svc-system of the hub.",
    FlagRolloutSpec,
    FlagRolloutStatus,
    [
      { name: "Flag", type: "string", jsonPath: ".spec.flag.name" },
      { name: "Phase", type: "string", jsonPath: ".status.phase" },
      { name: "Wave", type: "integer", jsonPath: ".status.currentWave" },
      { name: "Message", type: "string", jsonPath: ".status.message", priority: 1 },
    ],
  );
}

export function allCrds(): CustomResourceDefinition[] {
  return [featureFlagCrd(), clusterConnectionCrd(), flagRolloutCrd()];
}

/** The checked-in file deploy/crds/<name>.yaml for one CRD. */
export function renderCrdYaml(definition: CustomResourceDefinition): string {
  return (
    "# Generated from packages/core/src by `npm run crds`. Do not edit: change the schema there.\n" +
    stringify(definition, { lineWidth: 0, aliasDuplicateObjects: false })
  );
}
