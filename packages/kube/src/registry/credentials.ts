// Turns a ClusterConnection and its Secret into a client configuration for the cluster. Pure:
// the Secret is passed in. Messages name the Secret and key, never their content.
import { createHash } from "node:crypto";
import { KubeConfig } from "@kubernetes/client-node";
import {
  CLUSTER_CREDENTIAL_LABEL,
  CREDENTIAL_KEYS,
  credentialSecretProblem,
  isPlaintextServer,
  kubeconfigProblem,
  kubeconfigTrust,
  plaintextProblem,
  transportProblems,
  type ClusterConnectionSpec,
} from "@svc/core";
import type { ClusterConnectionResource, SecretJson } from "./types.ts";

export type ClusterCredentials = { ok: true; kubeConfig: KubeConfig } | { ok: false; message: string };

/** The Secret key holding the CA bundle (PEM) for the serviceaccount and oidc methods. */
export const CA_KEY = CREDENTIAL_KEYS.caCertificate;

/**
 * - The Secret must be one made for this cluster (credentialSecretProblem): svc-cluster-<id>,
 *   or labelled svc.io/cluster-credential=<id>. Another is refused before its value is read.
 * - `kubeconfig`: the key holds a kubeconfig; its current context is used. Credentials must be
 *   inline (kubeconfigProblem: no exec plugins, auth providers or file references).
 * - `serviceaccount` / `oidc`: the key holds a bearer token (an OIDC id token is not refreshed:
 *   it must be replaced in the Secret before it expires); `ca.crt` in the same Secret is the
 *   API server's CA bundle.
 * - The transport (transportProblems): https verified against the CA given; http://,
 *   insecure-skip-tls-verify, proxy-url or the system's public CAs only when the connection's
 *   spec allows them explicitly. A refused connection is never made, so nothing is sent.
 * In every case the connection's spec.apiServer is the address used, so the address shown is
 * the address reached.
 */
export function clusterCredentials(
  connection: ClusterConnectionResource,
  secret: SecretJson | undefined,
): ClusterCredentials {
  const { spec } = connection;
  const ref = spec.credentialRef;
  if (ref === undefined)
    return { ok: false, message: "spec.credentialRef is required for every cluster but the local one" };
  if (secret === undefined)
    return {
      ok: false,
      message: `no credentials: Secret ${ref.name} (key ${ref.key}) not found in ${connection.metadata.namespace ?? "svc-system"}`,
    };
  const refused = credentialSecretProblem(connection.metadata.name, ref.name, secret.metadata.labels);
  if (refused !== undefined) return { ok: false, message: `spec.credentialRef: ${refused}` };
  const plaintext = plaintextProblem(spec);
  if (plaintext !== undefined) return { ok: false, message: `spec.apiServer: ${plaintext.message}` };
  const value = secretValue(secret, ref.key);
  if (value === undefined || value.trim() === "")
    return { ok: false, message: `Secret ${ref.name} has no key ${ref.key}` };
  const method = spec.authMethod ?? "serviceaccount";
  if (method === "kubeconfig")
    return fromKubeconfig(value, spec, `the kubeconfig in Secret ${ref.name} key ${ref.key}`);
  const ca = secretValue(secret, CA_KEY);
  const trust = { ca: ca !== undefined && ca.trim() !== "", skipTLSVerify: false, proxy: false };
  const problem = transportProblems(spec, trust)[0];
  if (problem !== undefined) return { ok: false, message: `Secret ${ref.name}: ${problem.message}` };
  const kubeConfig = new KubeConfig();
  const name = connection.metadata.name;
  kubeConfig.loadFromClusterAndUser(
    {
      name,
      server: spec.apiServer,
      // client-node refuses http:// unless told to skip TLS, which http has none of; plaintext
      // was allowed explicitly above.
      skipTLSVerify: isPlaintextServer(spec.apiServer),
      ...(trust.ca && ca !== undefined ? { caData: Buffer.from(ca).toString("base64") } : {}),
    },
    { name, token: value.trim() },
  );
  return { ok: true, kubeConfig };
}

function fromKubeconfig(text: string, spec: ClusterConnectionSpec, where: string): ClusterCredentials {
  const problem = kubeconfigProblem(text);
  if (problem !== undefined) return { ok: false, message: `${where} ${problem}` };
  const trust = kubeconfigTrust(text);
  if (trust === undefined) return { ok: false, message: `${where} has no current context` };
  const refused = transportProblems(spec, trust)[0];
  if (refused !== undefined) return { ok: false, message: `${where}: ${refused.message}` };
  const kubeConfig = new KubeConfig();
  try {
    kubeConfig.loadFromString(text);
  } catch {
    return { ok: false, message: `${where} is not a valid kubeconfig` };
  }
  const current = kubeConfig.getCurrentCluster();
  const currentUser = kubeConfig.getCurrentUser();
  if (current === null || currentUser === null)
    return { ok: false, message: `${where} has no current context` };
  const plaintext = isPlaintextServer(spec.apiServer);
  kubeConfig.loadFromClusterAndUser(
    { ...current, server: spec.apiServer, skipTLSVerify: plaintext || current.skipTLSVerify },
    currentUser,
  );
  return { ok: true, kubeConfig };
}

function secretValue(secret: SecretJson, key: string): string | undefined {
  const encoded = secret.data?.[key];
  return encoded === undefined ? undefined : Buffer.from(encoded, "base64").toString("utf8");
}

/** What a cluster's connection depends on; a change of it reconnects the cluster. A digest: no credential is kept in clear. */
export function connectionFingerprint(
  local: boolean,
  connection: ClusterConnectionResource | undefined,
  secret: SecretJson | undefined,
): string {
  const spec = connection?.spec;
  const key = spec?.credentialRef?.key;
  const relevant = {
    local,
    // The local cluster is always reached with the process's own identity.
    apiServer: local ? undefined : spec?.apiServer,
    authMethod: local ? undefined : (spec?.authMethod ?? "serviceaccount"),
    credentialRef: local ? undefined : spec?.credentialRef,
    // Whether the Secret may be read, and how the server may be reached, are decided anew.
    transport: local ? undefined : [spec?.trustSystemCAs, spec?.insecure],
    credentialLabel: local ? undefined : secret?.metadata.labels?.[CLUSTER_CREDENTIAL_LABEL],
    // No namespaces and an empty list both mean all of them.
    namespaces: spec?.namespaces?.length ? [...spec.namespaces].sort() : undefined,
    secret:
      local || key === undefined
        ? undefined
        : [secret === undefined, secret?.data?.[key], secret?.data?.[CA_KEY]],
  };
  return createHash("sha256").update(JSON.stringify(relevant)).digest("hex");
}

/** A client configuration without credentials, for a cluster whose credentials are unusable. */
export function placeholderConfig(id: string, server: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromClusterAndUser({ name: id, server, skipTLSVerify: false }, { name: id });
  return kubeConfig;
}
