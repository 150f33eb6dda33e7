import Type from "typebox";
import { AUTH_METHODS, CLUSTER_PHASES, type ClusterPhase } from "../vocabulary.ts";
import {
  CONFIGMAP_KEY,
  CONFIGMAP_KEY_MAX,
  DNS1123_LABEL,
  DNS1123_LABEL_MAX,
  DNS1123_SUBDOMAIN,
  DNS1123_SUBDOMAIN_MAX,
  GO_DURATION,
  HTTP_URL,
  isLabelKey,
  isPlaintextServer,
} from "../schema/names.ts";
import { Conditions, labelMap } from "../schema/schema.ts";
import { fieldPath, schemaErrors, type FieldError, type Validated } from "../schema/validation.ts";

/** The namespace of the service itself: ClusterConnections and their Secrets live here. */
export const SYSTEM_NAMESPACE = "svc-system";
export { AUTH_METHODS, CLUSTER_PHASES, type ClusterPhase };
export const DEFAULT_RESYNC_PERIOD = "300s";
export const CLUSTER_LABELS_MAX = 64;

export const ClusterConnectionSpec = Type.Object(
  {
    displayName: Type.String({ minLength: 1, maxLength: 253, description: "Human-readable name." }),
    apiServer: Type.String({
      maxLength: 2048,
      pattern: HTTP_URL,
      errorMessage: "must be an absolute http(s) URL, e.g. https://10.0.0.1:6443",
      description: "URL of the cluster's Kubernetes API server.",
    }),
    authMethod: Type.Optional(
      Type.Enum([...AUTH_METHODS], {
        default: "serviceaccount",
        description:
          "kubeconfig (a kubeconfig file in the Secret), serviceaccount (a ServiceAccount token in the Secret, " +
          "or without credentialRef the operator's own identity: the local cluster), oidc (an OIDC token).",
      }),
    ),
    credentialRef: Type.Optional(
      Type.Object(
        {
          name: Type.String({
            maxLength: DNS1123_SUBDOMAIN_MAX,
            pattern: DNS1123_SUBDOMAIN,
            errorMessage: "must be a Secret name (a DNS-1123 subdomain)",
          }),
          key: Type.String({
            maxLength: CONFIGMAP_KEY_MAX,
            pattern: CONFIGMAP_KEY,
            errorMessage: "must be a Secret key: letters, digits, '-', '_' and '.'",
          }),
        },
        { additionalProperties: false, description: "Secret in svc-system holding the credentials." },
      ),
    ),
    namespaces: Type.Optional(
      Type.Array(
        Type.String({
          maxLength: DNS1123_LABEL_MAX,
          pattern: DNS1123_LABEL,
          errorMessage: "must be a namespace name (a DNS-1123 label)",
        }),
        {
          maxItems: 1000,
          uniqueItems: true,
          "x-kubernetes-list-type": "set",
          description: "Namespaces to scan; all but system namespaces when empty.",
        },
      ),
    ),
    resyncPeriod: Type.Optional(
      Type.String({
        maxLength: 64,
        pattern: GO_DURATION,
        default: DEFAULT_RESYNC_PERIOD,
        errorMessage: 'must be a duration such as "30s", "5m" or "1h"',
        description: "How often the cluster is fully re-read.",
      }),
    ),
    labels: Type.Optional(
      labelMap({ maxProperties: CLUSTER_LABELS_MAX, description: "Free labels on the cluster." }),
    ),
    trustSystemCAs: Type.Optional(
      Type.Boolean({
        description:
          "When the credentials give no CA for the API server (certificate-authority-data, caData, ca.crt): " +
          "verify its certificate against the system's public CAs. Without it such a connection is refused.",
      }),
    ),
    insecure: Type.Optional(
      Type.Object(
        {
          allowPlaintext: Type.Optional(
            Type.Boolean({
              description: "Allow an http:// apiServer: credentials and data travel unencrypted.",
            }),
          ),
          skipTLSVerify: Type.Optional(
            Type.Boolean({
              description:
                "Allow a kubeconfig's insecure-skip-tls-verify: the server's certificate is not checked.",
            }),
          ),
          allowProxy: Type.Optional(
            Type.Boolean({ description: "Allow a kubeconfig's proxy-url: requests go through that proxy." }),
          ),
          reason: Type.String({
            minLength: 1,
            maxLength: 1024,
            errorMessage: "must say why the connection may be insecure (1 to 1024 characters)",
            description: "Why: required with any insecure option, and audited.",
          }),
        },
        {
          additionalProperties: false,
          description:
            "Weakenings of how the API server is reached, each refused unless set here explicitly, with a reason.",
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ClusterConnectionSpec = Type.Static<typeof ClusterConnectionSpec>;

export const ClusterConnectionStatus = Type.Object({
  phase: Type.Optional(Type.Enum([...CLUSTER_PHASES])),
  kubernetesVersion: Type.Optional(Type.String({ maxLength: 128 })),
  discoveredWorkloads: Type.Optional(Type.Integer({ minimum: 0 })),
  lastSyncTime: Type.Optional(Type.String({ format: "date-time" })),
  message: Type.Optional(Type.String({ maxLength: 32768 })),
  conditions: Type.Optional(Conditions),
});
export type ClusterConnectionStatus = Type.Static<typeof ClusterConnectionStatus>;

/** Validates a ClusterConnection spec; `prefix` as for validateFlagSpec. */
export function validateClusterConnectionSpec(input: unknown, prefix = ""): Validated<ClusterConnectionSpec> {
  const shapeErrors = schemaErrors(ClusterConnectionSpec, input, prefix);
  if (shapeErrors.length > 0) return { ok: false, errors: shapeErrors };
  const spec = input as ClusterConnectionSpec;
  const errors: FieldError[] = Object.keys(spec.labels ?? {})
    .filter((key) => !isLabelKey(key))
    .map((key) => ({ field: fieldPath(prefix, `labels.${key}`), message: "is not a valid label key" }));
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: spec };
}

/**
 * How credentials say the API server is to be reached: read from a kubeconfig's cluster entry,
 * or from a token Secret (`ca.crt`) or registration (`caData`).
 */
export interface ServerTrust {
  /** A CA certificate for the API server is given: only it verifies the server. */
  ca: boolean;
  /** The kubeconfig sets insecure-skip-tls-verify. */
  skipTLSVerify: boolean;
  /** The kubeconfig sets proxy-url. */
  proxy: boolean;
}

/** Where a problem lies: the connection's apiServer, or the credentials (kubeconfig, token and CA). */
export interface TransportProblem {
  subject: "apiServer" | "credentials";
  /** A clause to follow "<subject>: "; it names the option that would allow it. */
  message: string;
}

type TransportSpec = Pick<ClusterConnectionSpec, "apiServer" | "insecure" | "trustSystemCAs">;

/** Why spec.apiServer may not be reached at all as written (plaintext), or undefined. */
export function plaintextProblem(spec: TransportSpec): TransportProblem | undefined {
  if (!isPlaintextServer(spec.apiServer) || spec.insecure?.allowPlaintext === true) return undefined;
  return {
    subject: "apiServer",
    message:
      "http:// would send the credentials unencrypted: use https://, or set insecure.allowPlaintext " +
      "(with insecure.reason)",
  };
}

/**
 * Why svc may not send these credentials to spec.apiServer: each weakening of TLS must be
 * allowed by the spec, and without a CA of its own the server is verified against public CAs
 * only when the spec says so (trustSystemCAs), since any public CA would then vouch for it.
 */
export function transportProblems(spec: TransportSpec, trust: ServerTrust): TransportProblem[] {
  const problems: TransportProblem[] = [];
  const plaintext = plaintextProblem(spec);
  if (plaintext !== undefined) problems.push(plaintext);
  const allowed = spec.insecure ?? { reason: "" };
  if (trust.skipTLSVerify && allowed.skipTLSVerify !== true)
    problems.push({
      subject: "credentials",
      message:
        "insecure-skip-tls-verify is set, so the server's certificate would not be checked: give " +
        "certificate-authority-data instead, or set insecure.skipTLSVerify (with insecure.reason)",
    });
  if (trust.proxy && allowed.allowProxy !== true)
    problems.push({
      subject: "credentials",
      message:
        "proxy-url is set, so every request would go through that proxy: remove it, or set " +
        "insecure.allowProxy (with insecure.reason)",
    });
  const verified = !isPlaintextServer(spec.apiServer) && !trust.skipTLSVerify;
  if (verified && !trust.ca && spec.trustSystemCAs !== true)
    problems.push({
      subject: "credentials",
      message:
        "no CA certificate of the API server is given (certificate-authority-data, caData or ca.crt): add " +
        "it, or set trustSystemCAs: true to verify the server against the system's public CAs",
    });
  return problems;
}
