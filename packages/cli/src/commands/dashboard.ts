import { buildDashboardServer, parseDashboardConfig } from "@svc/dashboard";
import { runProcess } from "@svc/process";

/** `svc dashboard`: the web dashboard and its /api proxy, configured from the environment. */
export function runDashboard(): Promise<void> {
  return runProcess({
    command: "svc dashboard",
    parse: parseDashboardConfig,
    start: async (config) => {
      const server = await buildDashboardServer(config);
      const { url } = await server.listen();
      server.app.log.info({ url, apiUrl: config.apiUrl }, "svc dashboard listening");
      return {
        close: (reason) => {
          server.app.log.info({ signal: reason }, "svc dashboard shutting down");
          return server.close();
        },
      };
    },
  });
}
