import { describeErrors } from "@svc/core";
import { buildDashboardServer, parseDashboardConfig } from "@svc/dashboard";

/** `svc dashboard`: the web dashboard and its /api proxy, configured from the environment. */
export async function runDashboard(): Promise<void> {
  const config = parseDashboardConfig(process.env);
  if (!config.ok) {
    process.stderr.write(`svc dashboard: invalid configuration: ${describeErrors(config.errors)}\n`);
    process.exitCode = 2;
    return;
  }
  let server;
  try {
    server = await buildDashboardServer(config.value);
  } catch (error) {
    process.stderr.write(
      `svc dashboard: cannot start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
    return;
  }
  const { url } = await server.listen();
  server.app.log.info({ url, apiUrl: config.value.apiUrl }, "svc dashboard listening");
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.app.log.info({ signal }, "svc dashboard shutting down");
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGTERM", () => {
    stop("SIGTERM");
  });
  process.on("SIGINT", () => {
    stop("SIGINT");
  });
}
