// Turns a ClusterConnection and its Secret into a client configuration for the cluster. Pure:
// the Secret is passed in. Messages name the Secret and key, never their content.
import { createHash } from "node:crypto";
import { KubeConfig } from "@kubernetes/client-node";
import { parse } from "yaml";
import type { ClusterConnectionResource, SecretJson } from "./types.ts";

export type ClusterCredentials = { ok: true; kubeConfig: KubeConfig } | { ok: false; message: string };

/** The Secret key holding the CA bundle (PEM) for the serviceaccount and oidc methods. */
export const CA_KEY = "ca.crt";

/**
 * - `kubeconfig`: the key holds a kubeconfig; its current context is used. Credentials must be
 *   inline: exec plugins and auth providers (commands run on the server) and file references
 *   (token-file, client-certificate, client-key, certificate-authority: files of the server,
 *   which a registered cluster must not make it read and send away) are refused.
 * - `serviceaccount` / `oidc`: the key holds a bearer token (an OIDC id token is not refreshed:
 *   it must be replaced in the Secret before it expires); `ca.crt` in the same Secret, when
 *   present, is the CA bundle, otherwise the system's trusted CAs apply.
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
  const value = secretValue(secret, ref.key);
  if (value === undefined || value.trim() === "")
    return { ok: false, message: `Secret ${ref.name} has no key ${ref.key}` };
  const method = spec.authMethod ?? "serviceaccount";
  const where = `the kubeconfig in Secret ${ref.name} key ${ref.key}`;
  if (method === "kubeconfig") return fromKubeconfig(value, spec.apiServer, where);
  const kubeConfig = new KubeConfig();
  const ca = secretValue(secret, CA_KEY);
  const name = connection.metadata.name;
  kubeConfig.loadFromClusterAndUser(
    {
      name,
      server: spec.apiServer,
      skipTLSVerify: false,
      ...(ca === undefined ? {} : { caData: Buffer.from(ca).toString("base64") }),
    },
    { name, token: value.trim() },
  );
  return { ok: true, kubeConfig };
}

function fromKubeconfig(text: string, apiServer: string, where: string): ClusterCredentials {
  let document: unknown;
  try {
    document = parse(text);
  } catch {
    // The parser's message quotes the offending line, which may hold a credential.
    return { ok: false, message: `${where} is not valid YAML` };
  }
  const config = document as RawKubeconfig | null;
  const contextName = config?.["current-context"];
  const context = config?.contexts?.find((c) => c.name === contextName)?.context;
  if (context === undefined) return { ok: false, message: `${where} has no current context` };
  const cluster = config?.clusters?.find((c) => c.name === context.cluster)?.cluster;
  const user = config?.users?.find((u) => u.name === context.user)?.user ?? {};
  if (cluster === undefined)
    return { ok: false, message: `${where}: the current context names no cluster of the file` };
  if (user.exec !== undefined)
    return {
      ok: false,
      message: `${where} uses an exec credential plugin, which is not run: put a token or client certificate in it`,
    };
  if (user["auth-provider"] !== undefined)
    return {
      ok: false,
      message: `${where} uses an auth-provider, which is not run: put a token or client certificate in it`,
    };
  const fileReference =
    (["token-file", "client-certificate", "client-key"] as const).find((k) => user[k] !== undefined) ??
    (cluster["certificate-authority"] !== undefined ? "certificate-authority" : undefined);
  if (fileReference !== undefined)
    return {
      ok: false,
      message: `${where} refers to a file (${fileReference}): put the data inline (${fileReference}-data or token)`,
    };
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
  kubeConfig.loadFromClusterAndUser({ ...current, server: apiServer }, currentUser);
  return { ok: true, kubeConfig };
}

function secretValue(secret: SecretJson, key: string): string | undefined {
  const encoded = secret.data?.[key];
  return encoded === undefined ? undefined : Buffer.from(encoded, "base64").toString("utf8");
}

interface RawKubeconfig {
  "current-context"?: string;
  contexts?: { name?: string; context?: { cluster?: string; user?: string } }[];
  clusters?: { name?: string; cluster?: Record<string, unknown> }[];
  users?: { name?: string; user?: Record<string, unknown> }[];
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
