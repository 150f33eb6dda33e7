import { buildApiServer, parseApiConfig } from "@svc/api";
import { join } from "node:path";
import { describeErrors } from "@svc/core";

/** `svc api`: the REST API server, configured from the environment (docs/api.md). */
export async function runApi(): Promise<void> {
  const config = parseApiConfig(process.env);
  if (!config.ok) {
    process.stderr.write(`svc api: invalid configuration: ${describeErrors(config.errors)}\n`);
    process.exitCode = 2;
    return;
  }
  let server;
  try {
    server = await buildApiServer(config.value);
  } catch (error) {
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
    server.close().then(
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

/** The API server for `svc dev`: loopback only, SQLite under `dir`, the fixed admin password. */
export async function startDevApi(dir: string): Promise<{ url: string; metricsUrl: string }> {
  const config = parseApiConfig({
    SVC_API_HOST: "127.0.0.1",
    SVC_DATABASE_PATH: join(dir, "svc.sqlite"),
    SVC_ADMIN_PASSWORD: DEV_ADMIN_PASSWORD,
    SVC_LOG_LEVEL: "warn",
    ...process.env,
  });
  if (!config.ok) throw new Error(`invalid API configuration: ${describeErrors(config.errors)}`);
  const server = await buildApiServer(config.value);
  return server.listen();
}
