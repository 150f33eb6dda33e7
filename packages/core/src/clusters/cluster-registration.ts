/**
 * POST /api/v1/clusters (DESIGN.md §4 Clusters): the registration body, its rules, and the
 * ClusterConnection (plus the Secret `svc-cluster-<id>` for inline credentials) it becomes.
 * The spec part reuses ClusterConnectionSpec and its validator. Credentials only ever travel
 * into the Secret: no message here quotes them.
 */
import Type from "typebox";
import { API_GROUP_VERSION } from "../vocabulary.ts";
import {
  AUTH_METHODS,
  ClusterConnectionSpec,
  transportProblems,
  validateClusterConnectionSpec,
  type ClusterConnectionStatus,
  type ServerTrust,
} from "./cluster-connection.ts";
import { CLUSTER_CONNECTION } from "../crd.ts";
import type { ObjectMeta } from "../kubernetes/object-meta.ts";
import { kubeconfigProblem, kubeconfigTrust } from "./kubeconfig.ts";
import { dns1123Label } from "../schema/schema.ts";
import { schemaErrors, type FieldError, type Validated } from "../schema/validation.ts";

/** A ClusterConnection as svc reads it from the hub cluster. metadata.name is the cluster id. */
export interface ClusterConnectionResource {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata: ObjectMeta & { name: string };
  spec: ClusterConnectionSpec;
  status?: ClusterConnectionStatus | undefined;
}

/** Keys of a credentials Secret: the kubeconfig, or a bearer token with the server's CA beside it. */
export const CREDENTIAL_KEYS = { kubeconfig: "kubeconfig", token: "token", caCertificate: "ca.crt" } as const;
const MANAGED_BY = { "app.kubernetes.io/managed-by": "svc" };

export function clusterSecretName(clusterId: string): string {
  return `svc-cluster-${clusterId}`;
}

/**
 * The label that makes a Secret a credential of one cluster: its value is the cluster id, so a
 * Secret made for one cluster is never sent to another (whose apiServer anyone registering it
 * chose). svc puts it on the Secrets it makes; a Secret applied with kubectl carries it too.
 */
export const CLUSTER_CREDENTIAL_LABEL = "svc.io/cluster-credential";

/**
 * Why cluster `clusterId` may not read Secret `name` (with `labels`), or undefined. Only its
 * default Secret svc-cluster-<id> or a Secret labelled for it: any other Secret of svc's
 * namespace (svc's admin password, the OIDC client secret, the database URL, another
 * cluster's credentials) would otherwise be sent as a bearer token to whatever server the
 * connection names.
 */
export function credentialSecretProblem(
  clusterId: string,
  name: string,
  labels: Readonly<Record<string, string>> | undefined,
): string | undefined {
  if (name === clusterSecretName(clusterId) || labels?.[CLUSTER_CREDENTIAL_LABEL] === clusterId)
    return undefined;
  return (
    `Secret ${name} is not a credential of cluster ${clusterId}: name it ${clusterSecretName(clusterId)}, ` +
    `or label it ${CLUSTER_CREDENTIAL_LABEL}=${clusterId}`
  );
}

const BASE64 = "^[A-Za-z0-9+/]*={0,2}$";

export const ClusterRegistrationBody = Type.Object(
  {
    id: dns1123Label("Cluster id: the ClusterConnection's name and the clusterId of its flags."),
    ...ClusterConnectionSpec.properties,
    authMethod: Type.Optional(
      Type.Enum([...AUTH_METHODS], {
        description:
          "kubeconfig, serviceaccount or oidc. Default: kubeconfig when a kubeconfig is sent, else serviceaccount.",
      }),
    ),
    kubeconfig: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512 * 1024,
        description: "A kubeconfig file (authMethod kubeconfig). Stored in a Secret, never returned.",
      }),
    ),
    token: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 16 * 1024,
        description: "A ServiceAccount or OIDC bearer token. Stored in a Secret, never returned.",
      }),
    ),
    caData: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64 * 1024,
        pattern: BASE64,
        errorMessage: "must be base64 of the API server's PEM CA certificate (as certificate-authority-data)",
        description: "With token: the API server's CA certificate, base64 PEM.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ClusterRegistrationBody = Type.Static<typeof ClusterRegistrationBody>;

/** Fields of the body that are not ClusterConnection spec fields. */
const REGISTRATION_ONLY = new Set(["id", "kubeconfig", "token", "caData"]);
const SOURCES = ["kubeconfig", "token", "credentialRef"] as const;

function credentialErrors(body: ClusterRegistrationBody): FieldError[] {
  const sent = SOURCES.filter((source) => body[source] !== undefined);
  const [first, second] = sent;
  // No credentials is a valid registration (SPEC.md's body has none): the connection then refers
  // to the Secret svc would have made, and its status says so until someone creates it.
  if (first === undefined) {
    return body.caData === undefined
      ? transportErrors(body, undefined)
      : [{ field: "caData", message: "goes with token only: send the token beside it" }];
  }
  if (second !== undefined) {
    return [
      {
        field: second,
        message: `cannot be sent with ${first}: send exactly one of kubeconfig, token or credentialRef`,
      },
    ];
  }
  const errors: FieldError[] = [];
  const { authMethod } = body;
  if (first === "kubeconfig" && authMethod !== undefined && authMethod !== "kubeconfig") {
    errors.push({ field: "authMethod", message: "must be kubeconfig when a kubeconfig is sent" });
  }
  if (first === "token" && authMethod === "kubeconfig") {
    errors.push({ field: "authMethod", message: "must be serviceaccount or oidc when a token is sent" });
  }
  if (body.caData !== undefined && first !== "token") {
    errors.push({
      field: "caData",
      message: "goes with token only (a kubeconfig carries its own CA; a referenced Secret holds ca.crt)",
    });
  }
  const problem = body.kubeconfig === undefined ? undefined : kubeconfigProblem(body.kubeconfig);
  if (problem !== undefined) errors.push({ field: "kubeconfig", message: problem });
  // How the server is reached is checked once the credentials themselves are usable.
  else if (errors.length === 0) errors.push(...transportErrors(body, first));
  return errors;
}

/**
 * The transport rule (transportProblems) for inline credentials; a referenced Secret's are
 * checked where it is read (the registry), and a plaintext apiServer in any case.
 */
function transportErrors(
  body: ClusterRegistrationBody,
  source: (typeof SOURCES)[number] | undefined,
): FieldError[] {
  const trust: ServerTrust | undefined =
    source === "kubeconfig" && body.kubeconfig !== undefined
      ? kubeconfigTrust(body.kubeconfig)
      : source === "token"
        ? { ca: body.caData !== undefined, skipTLSVerify: false, proxy: false }
        : undefined;
  const none: ServerTrust = { ca: true, skipTLSVerify: false, proxy: false };
  return transportProblems(body, trust ?? none).map(({ subject, message }) => ({
    field: subject === "apiServer" ? "apiServer" : source === "token" ? "caData" : "kubeconfig",
    message,
  }));
}

export function validateClusterRegistration(input: unknown): Validated<ClusterRegistrationBody> {
  const shape = schemaErrors(ClusterRegistrationBody, input);
  if (shape.length > 0) return { ok: false, errors: shape };
  const body = input as ClusterRegistrationBody;
  const spec = Object.entries(body).filter(([field]) => !REGISTRATION_ONLY.has(field));
  const specResult = validateClusterConnectionSpec(Object.fromEntries(spec));
  const errors = [...(specResult.ok ? [] : specResult.errors), ...credentialErrors(body)];
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: body };
}

export interface ClusterCredentialsSecret {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  /** Secret data, base64-encoded as the Secret's `data` field holds it. */
  data: Record<string, string>;
}

function connection(id: string, namespace: string, spec: ClusterConnectionSpec): ClusterConnectionResource {
  return {
    apiVersion: API_GROUP_VERSION,
    kind: CLUSTER_CONNECTION.kind,
    metadata: { name: id, namespace, labels: { ...MANAGED_BY } },
    spec,
  };
}

/**
 * The ClusterConnection a registration creates, and the Secret for inline credentials. Without
 * credentials, the connection refers to `svc-cluster-<id>` under the key its authMethod reads,
 * so creating that Secret later connects the cluster (the registry watches Secrets).
 */
export function clusterConnectionFromRegistration(
  body: ClusterRegistrationBody,
  systemNamespace: string,
): { connection: ClusterConnectionResource; secret?: ClusterCredentialsSecret } {
  const { id, kubeconfig, token, caData, credentialRef, authMethod, ...rest } = body;
  const name = clusterSecretName(id);
  const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
  const data: Record<string, string> | undefined =
    kubeconfig !== undefined
      ? { [CREDENTIAL_KEYS.kubeconfig]: base64(kubeconfig) }
      : token !== undefined
        ? {
            [CREDENTIAL_KEYS.token]: base64(token),
            ...(caData === undefined ? {} : { [CREDENTIAL_KEYS.caCertificate]: caData }),
          }
        : undefined;
  const method = authMethod ?? (kubeconfig !== undefined ? "kubeconfig" : "serviceaccount");
  const spec: ClusterConnectionSpec = {
    ...rest,
    authMethod: method,
    credentialRef: credentialRef ?? {
      name,
      key: method === "kubeconfig" ? CREDENTIAL_KEYS.kubeconfig : CREDENTIAL_KEYS.token,
    },
  };
  const result = { connection: connection(id, systemNamespace, spec) };
  if (data === undefined) return result;
  const labels = { ...MANAGED_BY, "svc.io/cluster": id, [CLUSTER_CREDENTIAL_LABEL]: id };
  return { ...result, secret: { name, namespace: systemNamespace, labels, data } };
}

/**
 * The ClusterConnection of the hub itself, which the operator creates at start-up and the API
 * shows before it exists: reached with the process's own credentials (no credentialRef).
 */
export function localClusterConnection(options: {
  id: string;
  apiServer: string;
  systemNamespace: string;
}): ClusterConnectionResource {
  return connection(options.id, options.systemNamespace, {
    displayName: "Local cluster",
    apiServer: options.apiServer,
    authMethod: "serviceaccount",
  });
}
