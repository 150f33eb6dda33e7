import { buildApiServer, isAdminPassword, parseApiConfig, type ApiConfig, type ApiServer } from "@svc/api";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { describeErrors } from "@svc/core";
import { ClusterRegistry } from "@svc/kube";
import { runProcess, startGroups } from "@svc/process";

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

/**
 * `svc api`: the REST API server, configured from the environment (docs/api.md). The clusters
 * start first, since the flag routes read them; on shutdown the server stops accepting and
 * finishes its requests before they close.
 */
export function runApi(): Promise<void> {
  return runProcess({
    command: "svc api",
    parse: parseApiConfig,
    start: async (config) => {
      let clusters: ClusterRegistry | undefined;
      let server: ApiServer | undefined;
      const running = startGroups([
        [
          {
            name: "clusters",
            start: async () => void (clusters = await startClusters(config)),
            close: async () => clusters?.close(),
          },
        ],
        [
          {
            name: "API server",
            start: async () => {
              server = await buildApiServer(config, { clusters });
              const { url, metricsUrl } = await server.listen();
              server.app.log.info({ url, metricsUrl, database: config.database.kind }, "svc api listening");
            },
            close: async () => server?.close(),
          },
        ],
      ]);
      await running.ready;
      return {
        close: (reason) => {
          server?.app.log.info({ signal: reason }, "svc api shutting down");
          return running.close();
        },
      };
    },
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
