import { isIP } from "node:net";
import { HTTP_URL, matchesPattern, type Validated } from "@svc/core";
import { LOG_LEVELS, settingsReader, type Environment, type LogLevel } from "@svc/core/schema/settings";

export interface DashboardConfig {
  host: string;
  port: number;
  /** Where `/api/*` goes: the API server's base URL (no path). */
  apiUrl: string;
  /** Longest wait for the API server's answer before the proxy gives up with 504. */
  apiTimeoutMs: number;
  logLevel: LogLevel;
  /**
   * Addresses and CIDRs of the proxies in front of the dashboard (an ingress controller) whose
   * X-Forwarded-For names the browser (SVC_TRUSTED_PROXIES); empty: the connection's address.
   */
  trustedProxies?: readonly string[];
  /** Sent to the API with each request (SVC_PROXY_SECRET), so that it believes X-Forwarded-For. */
  proxySecret?: string | undefined;
}

export const DEFAULT_DASHBOARD_PORT = 8080;
export const DEFAULT_API_URL = "http://127.0.0.1:8090";

/** An IPv4 or IPv6 address, with an optional prefix length. */
function isNetwork(cidr: string): boolean {
  const [address = "", bits] = cidr.split("/");
  const version = isIP(address);
  if (version === 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128));
}

/** Reads `svc dashboard`'s settings from environment variables (docs/dashboard.md lists them). */
export function parseDashboardConfig(env: Environment): Validated<DashboardConfig> {
  const read = settingsReader(env);
  const port = read.port("SVC_DASHBOARD_PORT", DEFAULT_DASHBOARD_PORT);
  const host = read.text("SVC_DASHBOARD_HOST", "0.0.0.0");
  const apiUrl = read.text("SVC_API_URL", DEFAULT_API_URL).replace(/\/+$/, "");
  const valid = matchesPattern(HTTP_URL, apiUrl) && URL.canParse(apiUrl) && new URL(apiUrl).pathname === "/";
  if (!valid) {
    read.problem(
      "SVC_API_URL",
      `must be an http:// or https:// URL without a path, got ${JSON.stringify(apiUrl)}`,
    );
  }
  const apiTimeoutMs = read.durationMs("SVC_API_TIMEOUT", 30_000, { min: 100, max: 600_000 });
  const logLevel = read.oneOf("SVC_LOG_LEVEL", LOG_LEVELS, "info");
  const trustedProxies = read
    .text(
      "SVC_TRUSTED_PROXIES",
      "",
      "comma-separated addresses or CIDRs of the proxies in front of the dashboard",
    )
    .split(",")
    .map((cidr) => cidr.trim())
    .filter((cidr) => cidr !== "");
  const bad = trustedProxies.filter((cidr) => !isNetwork(cidr));
  if (bad.length > 0) read.problem("SVC_TRUSTED_PROXIES", `not an address or CIDR: ${bad.join(", ")}`);
  const proxySecret = read.text("SVC_PROXY_SECRET", "", "the API's SVC_PROXY_SECRET") || undefined;
  if (read.errors.length > 0) return { ok: false, errors: [...read.errors] };
  return {
    ok: true,
    value: {
      host,
      port,
      apiUrl,
      apiTimeoutMs,
      logLevel,
      ...(trustedProxies.length === 0 ? {} : { trustedProxies }),
      ...(proxySecret === undefined ? {} : { proxySecret }),
    },
  };
}
