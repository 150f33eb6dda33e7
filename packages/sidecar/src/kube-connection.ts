// How the sidecar reaches its cluster's API server: the pod's ServiceAccount, or a kubeconfig
// outside a pod. Deliberately not @kubernetes/client-node: importing it takes about 1.5 s and
// 90 MB on this runtime, against a sidecar budget of a second and a few tens of MB (see
// docs/sidecar.md); list and watch of one resource need only HTTPS and a bearer token or a
// client certificate.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

export interface KubeConnection {
  /** https://host:port, without a trailing slash. */
  server: string;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  /** TLS server name to verify, when it differs from the host of `server`. */
  servername?: string;
  rejectUnauthorized: boolean;
  /** The bearer token for the next request (re-read from its file: projected tokens rotate). */
  token: () => string | undefined;
}

const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** The in-cluster connection, as client-go's rest.InClusterConfig builds it. */
export function inClusterConnection(env: Record<string, string | undefined>): KubeConnection {
  const host = env["KUBERNETES_SERVICE_HOST"];
  const port = env["KUBERNETES_SERVICE_PORT"];
  if (!host || !port) {
    throw new Error(
      "not in a pod (KUBERNETES_SERVICE_HOST/PORT unset) and KUBECONFIG unset: set KUBECONFIG to run outside a cluster",
    );
  }
  return {
    server: `https://${host.includes(":") ? `[${host}]` : host}:${port}`,
    ca: readFileSync(`${SERVICE_ACCOUNT_DIR}/ca.crt`),
    rejectUnauthorized: true,
    token: tokenFromFile(() => readFileSync(`${SERVICE_ACCOUNT_DIR}/token`, "utf8"), Date.now),
  };
}

const TOKEN_MAX_AGE_MS = 60_000;

/**
 * A token file's trimmed content, read now and re-read when a minute old, as client-go does for
 * projected ServiceAccount tokens (the kubelet rotates them in place). When a re-read fails (the
 * file being replaced), the last token is kept and the read is tried again at the next request.
 */
export function tokenFromFile(read: () => string, now: () => number): () => string {
  let token = read().trim();
  let readAt = now();
  return () => {
    if (now() - readAt >= TOKEN_MAX_AGE_MS) {
      try {
        token = read().trim();
        readAt = now();
      } catch {
        // keep serving the last token; the next request tries again
      }
    }
    return token;
  };
}

interface KubeconfigCluster {
  server?: string;
  "certificate-authority"?: string;
  "certificate-authority-data"?: string;
  "insecure-skip-tls-verify"?: boolean;
  "tls-server-name"?: string;
}

interface KubeconfigUser {
  token?: string;
  tokenFile?: string;
  "client-certificate"?: string;
  "client-certificate-data"?: string;
  "client-key"?: string;
  "client-key-data"?: string;
  exec?: unknown;
  "auth-provider"?: unknown;
  username?: string;
}

/** The parts of a kubeconfig (kubectl's Config) the sidecar reads. */
export interface Kubeconfig {
  "current-context"?: string;
  clusters?: { name?: string; cluster?: KubeconfigCluster }[];
  users?: { name?: string; user?: KubeconfigUser }[];
  contexts?: { name?: string; context?: { cluster?: string; user?: string } }[];
}

function named<T>(kind: string, name: string | undefined, entry: T | undefined): T {
  if (entry === undefined) throw new Error(`kubeconfig: no ${kind} named ${JSON.stringify(name)}`);
  return entry;
}

/**
 * The connection a kubeconfig's current context describes. `readFile` resolves file references
 * (relative to the kubeconfig's folder). Exec plugins and auth providers are refused with a
 * message: the sidecar runs in a pod, and a token or certificate kubeconfig covers local use.
 */
export function kubeconfigConnection(
  config: Kubeconfig,
  readFile: (path: string) => Buffer,
  now: () => number = Date.now,
): KubeConnection {
  const contextName = config["current-context"];
  const context = named(
    "context",
    contextName,
    config.contexts?.find((c) => c.name === contextName)?.context,
  );
  const cluster = named(
    "cluster",
    context.cluster,
    config.clusters?.find((c) => c.name === context.cluster)?.cluster,
  );
  const user = named("user", context.user, config.users?.find((u) => u.name === context.user)?.user);
  if (user.exec !== undefined || user["auth-provider"] !== undefined || user.username !== undefined) {
    throw new Error(
      "kubeconfig: the sidecar supports token and client-certificate users only (no exec plugins, auth providers or basic auth)",
    );
  }
  if (cluster.server === undefined) throw new Error("kubeconfig: the current cluster has no server");
  const bytes = (data: string | undefined, file: string | undefined): Buffer | undefined =>
    data !== undefined ? Buffer.from(data, "base64") : file !== undefined ? readFile(file) : undefined;
  const { token, tokenFile } = user;
  const connection: KubeConnection = {
    server: cluster.server.replace(/\/+$/, ""),
    rejectUnauthorized: cluster["insecure-skip-tls-verify"] !== true,
    token:
      token !== undefined || tokenFile === undefined
        ? () => token
        : tokenFromFile(() => readFile(tokenFile).toString(), now),
  };
  const ca = bytes(cluster["certificate-authority-data"], cluster["certificate-authority"]);
  const cert = bytes(user["client-certificate-data"], user["client-certificate"]);
  const key = bytes(user["client-key-data"], user["client-key"]);
  if (ca) connection.ca = ca;
  if (cert) connection.cert = cert;
  if (key) connection.key = key;
  if (cluster["tls-server-name"] !== undefined) connection.servername = cluster["tls-server-name"];
  return connection;
}

/** Loads a kubeconfig file (YAML is parsed only here, so a pod never loads the parser). */
export async function loadKubeconfig(path: string): Promise<KubeConnection> {
  const { parse } = await import("yaml");
  const config = parse(readFileSync(path, "utf8")) as Kubeconfig;
  const base = dirname(resolve(path));
  return kubeconfigConnection(config, (file) => readFileSync(resolve(base, file)));
}
