import {
  isDns1123Label,
  readDeliveryPolicy,
  SYSTEM_NAMESPACE,
  type DeliveryPolicy,
  type Validated,
} from "@svc/core";
import {
  LOG_LEVELS,
  settingsReader,
  type Environment,
  type LogLevel,
  type SettingsReader,
} from "@svc/core/schema/settings";
import { parseNetwork } from "./webhooks/address.ts";
import { readSsoConfig, type SsoConfig } from "./sso/settings.ts";

export type DatabaseConfig = { kind: "sqlite"; path: string } | { kind: "postgres"; url: string };

/** Outbound webhooks (docs/webhooks.md). */
export interface WebhookConfig {
  /** CIDRs a webhook URL may reach although loopback, link-local or private (SSRF guard). */
  allowedNetworks: readonly string[];
  /** Bound on one delivery attempt, connection to last byte. */
  timeoutMs: number;
  /** The longest wait between two attempts of one delivery. */
  retryMaxDelayMs: number;
  /** How often each replica looks for due deliveries. */
  pollIntervalMs: number;
  /**
   * How long a flag change seen in a cluster's cache waits before it is enqueued, so that the
   * API's own event of a change it made (with its actor and before/after) is the one kept.
   */
  observedGraceMs: number;
}

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
  logLevel: LogLevel;
  /**
   * Whose X-Forwarded-For is believed (Fastify's trustProxy): addresses and CIDRs of the proxies
   * in front of the API (SVC_TRUSTED_PROXIES); true: every address (deprecated SVC_TRUST_PROXY).
   */
  trustProxy: boolean | readonly string[];
  /** The secret svc's dashboard sends with X-Forwarded-For (SVC_PROXY_SECRET; http/client-address.ts). */
  proxySecret?: string | undefined;
  /** The id under which the cluster this server runs in (the hub) is listed. */
  clusterId: string;
  /** The service's own namespace in the hub: ClusterConnections and their Secrets. */
  systemNamespace: string;
  webhooks: WebhookConfig;
  /** Single sign-on through an OpenID provider; undefined when not configured. */
  sso: SsoConfig | undefined;
  /** false: only `admin` may log in with a password, everyone else signs in with SSO. */
  passwordLogin: boolean;
  /** The operator's delivery policy, so the API refuses early and previews the same (docs/delivery.md). */
  delivery: DeliveryPolicy;
}

export const DEFAULT_CLUSTER_ID = "local";

export const DEFAULT_API_PORT = 8090;
export const DEFAULT_METRICS_PORT = 9090;
export const DEFAULT_DATABASE_PATH = "svc.sqlite";
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;
export const DEFAULT_WEBHOOK_CONFIG: WebhookConfig = {
  allowedNetworks: [],
  timeoutMs: 10_000,
  retryMaxDelayMs: 5 * 60_000,
  pollIntervalMs: 1000,
  observedGraceMs: 5000,
};

function readWebhookConfig(read: SettingsReader): WebhookConfig {
  const d = DEFAULT_WEBHOOK_CONFIG;
  const networks = read.text(
    "SVC_WEBHOOK_ALLOWED_NETWORKS",
    "",
    "comma-separated CIDRs (10.0.0.0/8,::1/128)",
  );
  const allowedNetworks = networks
    .split(",")
    .map((cidr) => cidr.trim())
    .filter((cidr) => cidr !== "");
  const bad = allowedNetworks.filter((cidr) => parseNetwork(cidr) === undefined);
  if (bad.length > 0) read.problem("SVC_WEBHOOK_ALLOWED_NETWORKS", `not a CIDR: ${bad.join(", ")}`);
  return {
    allowedNetworks,
    timeoutMs: read.durationMs("SVC_WEBHOOK_TIMEOUT", d.timeoutMs, { min: 100, max: 120_000 }),
    retryMaxDelayMs: read.durationMs("SVC_WEBHOOK_RETRY_MAX_DELAY", d.retryMaxDelayMs, {
      min: 100,
      max: 3_600_000,
    }),
    pollIntervalMs: read.durationMs("SVC_WEBHOOK_POLL_INTERVAL", d.pollIntervalMs, { min: 50, max: 60_000 }),
    observedGraceMs: read.durationMs("SVC_WEBHOOK_OBSERVED_GRACE", d.observedGraceMs, {
      min: 0,
      max: 60_000,
    }),
  };
}

/**
 * The proxies whose X-Forwarded-For names the client (docs/install.md "Behind a proxy"): only
 * those listed, so that nobody else can write a made-up source address into the audit log.
 */
function readTrustedProxies(read: SettingsReader): boolean | readonly string[] {
  // Deprecated: true believes X-Forwarded-For from every address, which lets anyone who reaches
  // the API forge the audit log's source; kept so that existing installs still start.
  const everyone = read.boolean("SVC_TRUST_PROXY", false);
  const listed = read
    .text("SVC_TRUSTED_PROXIES", "", "comma-separated addresses or CIDRs of the proxies in front of the API")
    .split(",")
    .map((cidr) => cidr.trim())
    .filter((cidr) => cidr !== "");
  const bad = listed.filter((cidr) => parseNetwork(cidr) === undefined);
  if (bad.length > 0) read.problem("SVC_TRUSTED_PROXIES", `not an address or CIDR: ${bad.join(", ")}`);
  if (everyone && listed.length > 0) {
    read.problem(
      "SVC_TRUST_PROXY",
      "set only SVC_TRUSTED_PROXIES (SVC_TRUST_PROXY=true trusts every address)",
    );
  }
  return everyone ? true : listed.length > 0 ? listed : false;
}

/** Reads the API server's settings from environment variables (docs/api.md lists them). */
export function parseApiConfig(env: Environment): Validated<ApiConfig> {
  const read = settingsReader(env);
  const port = read.port("SVC_API_PORT", DEFAULT_API_PORT);
  const metricsPort = read.port("SVC_METRICS_PORT", DEFAULT_METRICS_PORT);
  const auditRetentionDays = read.integer("SVC_AUDIT_RETENTION_DAYS", DEFAULT_AUDIT_RETENTION_DAYS, {
    min: 1,
    max: 100_000,
  });
  const url = read.text("SVC_DATABASE_URL", "");
  let database: DatabaseConfig = {
    kind: "sqlite",
    path: read.text("SVC_DATABASE_PATH", DEFAULT_DATABASE_PATH),
  };
  if (/^postgres(ql)?:\/\//.test(url)) database = { kind: "postgres", url };
  else if (url !== "") read.problem("SVC_DATABASE_URL", "must be a postgres:// URL");
  const logLevel = read.oneOf("SVC_LOG_LEVEL", LOG_LEVELS, "info");
  const trustProxy = readTrustedProxies(read);
  const proxySecret =
    read.text("SVC_PROXY_SECRET", "", "at least 32 characters, the dashboard's own") || undefined;
  if (proxySecret !== undefined && proxySecret.length < 32) {
    read.problem("SVC_PROXY_SECRET", "must be at least 32 characters (the chart generates one)");
  }
  const clusterId = read.text("SVC_CLUSTER_ID", DEFAULT_CLUSTER_ID);
  const systemNamespace = read.text("SVC_NAMESPACE", SYSTEM_NAMESPACE);
  const webhooks = readWebhookConfig(read);
  for (const [name, value] of [
    ["SVC_CLUSTER_ID", clusterId],
    ["SVC_NAMESPACE", systemNamespace],
  ] as const) {
    if (!isDns1123Label(value)) read.problem(name, `must be a DNS-1123 label, got ${JSON.stringify(value)}`);
  }
  const sso = readSsoConfig(read);
  const passwordLogin = read.boolean("SVC_PASSWORD_LOGIN", true);
  const delivery = readDeliveryPolicy(read, systemNamespace);
  if (!passwordLogin && sso === undefined) {
    read.problem("SVC_PASSWORD_LOGIN", "can be false only with single sign-on (SVC_OIDC_ISSUER_URL) set");
  }
  if (read.errors.length > 0) return { ok: false, errors: [...read.errors] };
  const host = read.text("SVC_API_HOST", "0.0.0.0");
  return {
    ok: true,
    value: {
      host,
      port,
      metricsHost: read.text("SVC_METRICS_HOST", host),
      metricsPort,
      database,
      adminPassword: read.text("SVC_ADMIN_PASSWORD", "") || undefined,
      auditRetentionDays,
      logLevel,
      trustProxy,
      proxySecret,
      clusterId,
      systemNamespace,
      webhooks,
      sso,
      passwordLogin,
      delivery,
    },
  };
}
