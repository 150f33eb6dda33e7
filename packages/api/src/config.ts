import { isDns1123Label, SYSTEM_NAMESPACE, type FieldError, type Validated } from "@svc/core";

export type DatabaseConfig = { kind: "sqlite"; path: string } | { kind: "postgres"; url: string };

export interface ApiConfig {
  host: string;
  port: number;
  /** Prometheus metrics are served on their own port so they never share the API's auth. */
  metricsHost: string;
  metricsPort: number;
  database: DatabaseConfig;
  /** Password of the initial `admin` user, created at start-up when it does not exist. */
  adminPassword: string | undefined;
  auditRetentionDays: number;
  logLevel: string;
  /** Trust X-Forwarded-For (set when the dashboard's proxy or an ingress fronts the API). */
  trustProxy: boolean;
  /** The id under which the cluster this server runs in (the hub) is listed. */
  clusterId: string;
  /** The service's own namespace in the hub: ClusterConnections and their Secrets. */
  systemNamespace: string;
}

export const DEFAULT_CLUSTER_ID = "local";

export const DEFAULT_API_PORT = 8090;
export const DEFAULT_METRICS_PORT = 9090;
export const DEFAULT_DATABASE_PATH = "svc.sqlite";
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;
const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

function integer(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  fallback: number,
  min: number,
  max: number,
  errors: FieldError[],
): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = /^[0-9]+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    errors.push({ field: name, message: `must be an integer between ${min} and ${max}` });
    return fallback;
  }
  return value;
}

/** Reads the API server's settings from environment variables (docs/api.md lists them). */
export function parseApiConfig(env: Readonly<Record<string, string | undefined>>): Validated<ApiConfig> {
  const errors: FieldError[] = [];
  const port = integer(env, "SVC_API_PORT", DEFAULT_API_PORT, 0, 65535, errors);
  const metricsPort = integer(env, "SVC_METRICS_PORT", DEFAULT_METRICS_PORT, 0, 65535, errors);
  const auditRetentionDays = integer(
    env,
    "SVC_AUDIT_RETENTION_DAYS",
    DEFAULT_AUDIT_RETENTION_DAYS,
    1,
    100_000,
    errors,
  );
  const url = env["SVC_DATABASE_URL"] ?? "";
  let database: DatabaseConfig = { kind: "sqlite", path: env["SVC_DATABASE_PATH"] || DEFAULT_DATABASE_PATH };
  if (/^postgres(ql)?:\/\//.test(url)) database = { kind: "postgres", url };
  else if (url !== "") errors.push({ field: "SVC_DATABASE_URL", message: "must be a postgres:// URL" });
  const logLevel = env["SVC_LOG_LEVEL"] || "info";
  if (!LOG_LEVELS.includes(logLevel)) {
    errors.push({ field: "SVC_LOG_LEVEL", message: `must be one of: ${LOG_LEVELS.join(", ")}` });
  }
  const trustProxy = env["SVC_TRUST_PROXY"] ?? "false";
  if (trustProxy !== "true" && trustProxy !== "false") {
    errors.push({ field: "SVC_TRUST_PROXY", message: "must be true or false" });
  }
  const clusterId = env["SVC_CLUSTER_ID"] || DEFAULT_CLUSTER_ID;
  const systemNamespace = env["SVC_NAMESPACE"] || SYSTEM_NAMESPACE;
  for (const [name, value] of [
    ["SVC_CLUSTER_ID", clusterId],
    ["SVC_NAMESPACE", systemNamespace],
  ] as const) {
    if (!isDns1123Label(value)) errors.push({ field: name, message: "must be a DNS-1123 label" });
  }
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      host: env["SVC_API_HOST"] || "0.0.0.0",
      port,
      metricsHost: env["SVC_METRICS_HOST"] || env["SVC_API_HOST"] || "0.0.0.0",
      metricsPort,
      database,
      adminPassword: env["SVC_ADMIN_PASSWORD"] || undefined,
      auditRetentionDays,
      logLevel,
      trustProxy: trustProxy === "true",
      clusterId,
      systemNamespace,
    },
  };
}
