export {
  parseDashboardConfig,
  DEFAULT_API_URL,
  DEFAULT_DASHBOARD_PORT,
  type DashboardConfig,
} from "./config.ts";
export { buildDashboardServer, DEFAULT_DIST_DIR, type DashboardServer } from "./server.ts";
