import { buildApiServer, isAdminPassword, parseApiConfig, type ApiConfig } from "@svc/api";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { describeErrors } from "@svc/core";
import { ClusterRegistry } from "@svc/kube";

/**
 * The clusters behind the flag routes: the hub through this process's own credentials
 * (KUBECONFIG, ~/.kube/config, or the in-cluster service account), others from their
 * ClusterConnections.
 */
function startClusters(config: ApiConfig): Promise<ClusterRegistry> {
  const hubKubeConfig = new KubeConfig();
  hubKubeConfig.loadFromDefault();
  return ClusterRegistry.start({
    hubKubeConfig,
    systemNamespace: config.systemNamespace,
    localClusterId: config.clusterId,
  });
}

/** `svc api`: the REST API server, configured from the environment (docs/api.md). */
export async function runApi(): Promise<void> {
  const config = parseApiConfig(process.env);
  if (!config.ok) {
    process.stderr.write(`svc api: invalid configuration: ${describeErrors(config.errors)}\n`);
    process.exitCode = 2;
    return;
  }
  let server;
  let clusters: ClusterRegistry | undefined;
  try {
    clusters = await startClusters(config.value);
    server = await buildApiServer(config.value, { clusters });
  } catch (error) {
    await clusters?.close();
    process.stderr.write(
      `svc api: cannot start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
    return;
  }
  const { url, metricsUrl } = await server.listen();
  server.app.log.info({ url, metricsUrl, database: config.value.database.kind }, "svc api listening");
  // Graceful shutdown: stop accepting, finish in-flight requests, close the database, exit.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.app.log.info({ signal }, "svc api shutting down");
    const registry = clusters;
    server
      .close()
      .then(() => registry.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          server.app.log.error({ err: error }, "shutdown failed");
          process.exit(1);
        },
      );
  };
  process.once("SIGTERM", () => {
    stop("SIGTERM");
  });
  process.once("SIGINT", () => {
    stop("SIGINT");
  });
}

/** `svc dev`'s fixed development admin password (SPEC.md: the development profile uses one). */
export const DEV_ADMIN_PASSWORD = "admin-dev-password";

export interface DevApi {
  url: string;
  metricsUrl: string;
  /** The admin password in force, or undefined when the database (SVC_DATABASE_URL) keeps another. */
  adminPassword: string | undefined;
  close: () => Promise<void>;
}

/**
 * The API server for `svc dev`: loopback only, SQLite under `dir`, the cluster of
 * `kubeconfigPath` as its hub, admin's password from SVC_ADMIN_PASSWORD or the fixed development
 * one.
 */
export async function startDevApi(
  dir: string,
  kubeconfigPath: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<DevApi> {
  const config = parseApiConfig({
    SVC_API_HOST: "127.0.0.1",
    SVC_DATABASE_PATH: join(dir, "svc.sqlite"),
    SVC_ADMIN_PASSWORD: DEV_ADMIN_PASSWORD,
    SVC_LOG_LEVEL: "warn",
    ...env,
  });
  if (!config.ok) throw new Error(`invalid API configuration: ${describeErrors(config.errors)}`);
  const hubKubeConfig = new KubeConfig();
  hubKubeConfig.loadFromFile(kubeconfigPath);
  const clusters = await ClusterRegistry.start({
    hubKubeConfig,
    systemNamespace: config.value.systemNamespace,
    localClusterId: config.value.clusterId,
  });
  const server = await buildApiServer(config.value, { clusters });
  const password = config.value.adminPassword ?? DEV_ADMIN_PASSWORD;
  const inForce = await isAdminPassword(server.context.users, password);
  const urls = await server.listen();
  return {
    ...urls,
    adminPassword: inForce ? password : undefined,
    close: async () => {
      await server.close();
      await clusters.close();
    },
  };
}
