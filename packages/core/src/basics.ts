/**
 * The dependency-free part of the domain (no TypeBox, no YAML): resource names, flag types and
 * value rules. Re-exported by the package root; imported directly (`@svc/core/basics`) by
 * processes that must start fast and stay small, such as the sidecar.
 */

export const API_GROUP = "svc.io";
export const API_VERSION = "v1alpha1";
export const API_GROUP_VERSION = `${API_GROUP}/${API_VERSION}`;

/**
 * The largest request body the REST API takes (DESIGN.md §4; 413 beyond). The dashboard's proxy
 * refuses larger ones itself: the API answers them before reading them all and closes.
 */
export const API_BODY_LIMIT_BYTES = 1024 * 1024;

export const FEATURE_FLAG = { kind: "FeatureFlag", plural: "featureflags", singular: "featureflag" } as const;

export const FLAG_TYPES = ["boolean", "integer", "string", "json"] as const;
export type FlagType = (typeof FLAG_TYPES)[number];

export const DELIVERY_KINDS = ["envVar", "configMap", "sidecar"] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];

/** FLAG_ + the flag name upper-cased, '-' turned into '_' (a flag name is a DNS-1123 label). */
export function defaultEnvVarName(flagName: string): string {
  return `FLAG_${flagName.toUpperCase().replaceAll("-", "_")}`;
}

/** The delivery kind a delivery holds (a valid one holds exactly one). */
export function deliveryKind(delivery: Partial<Record<DeliveryKind, unknown>>): DeliveryKind {
  const kind = DELIVERY_KINDS.find((k) => delivery[k] !== undefined);
  if (kind === undefined) throw new Error("delivery holds no kind");
  return kind;
}

export const FLAG_PHASES = ["Pending", "Delivered", "Degraded", "NoTargets"] as const;
export type FlagPhase = (typeof FLAG_PHASES)[number];

/**
 * What became of a flag at one target workload:
 * delivered (the workload carries it), pending (not applied yet), conflict (the workload already
 * defines the variable, or another flag sets it), invalid (the flag's value cannot be delivered),
 * disabled (the flag is off and its value withdrawn).
 */
export const TARGET_OUTCOMES = ["delivered", "pending", "conflict", "invalid", "disabled"] as const;
export type TargetOutcome = (typeof TARGET_OUTCOMES)[number];

export const AUTH_METHODS = ["kubeconfig", "serviceaccount", "oidc"] as const;
export const CLUSTER_PHASES = ["Connected", "Disconnected", "Error"] as const;
export type ClusterPhase = (typeof CLUSTER_PHASES)[number];

export const DEFAULT_SIDECAR_PORT = 8514;
/** Where the injected sidecar's downward API volume is mounted, and its file of the pod's labels. */
export const SIDECAR_PODINFO_MOUNT = "/etc/svc-flags-podinfo";
export const SIDECAR_POD_LABELS_FILE = "labels";

export const INT64_MAX = "9223372036854775807";
export const INT64_MIN = "-9223372036854775808";

export function isEnabled(spec: { enabled?: boolean | undefined }): boolean {
  return spec.enabled !== false;
}

/** Whether a flag's value can differ by context: it has a (non-empty) targeting rule. */
export function isTargeted(spec: { targeting?: Record<string, unknown> | undefined }): boolean {
  return spec.targeting !== undefined && Object.keys(spec.targeting).length > 0;
}

/** Why `value` is not a valid value of `type`, or undefined when it is. */
export function defaultValueProblem(type: FlagType, value: string): string | undefined {
  switch (type) {
    case "boolean":
      return value === "true" || value === "false" ? undefined : "must be true or false for a boolean flag";
    case "integer": {
      const problem = "must be a signed 64-bit decimal integer for an integer flag";
      if (!/^-?(0|[1-9][0-9]*)$/.test(value)) return problem;
      const n = BigInt(value);
      return n >= BigInt(INT64_MIN) && n <= BigInt(INT64_MAX) ? undefined : problem;
    }
    case "json":
      try {
        JSON.parse(value);
        return undefined;
      } catch {
        return "must be valid JSON text for a json flag";
      }
    case "string":
      return undefined;
  }
}

/**
 * The status and message for a request Node's HTTP parser refused before any route saw it
 * (its `clientError`), so that every server of the house answers it with a JSON error.
 */
export function httpClientErrorReply(
  error: { code?: string; message: string },
  maxHeaderBytes: number,
): { status: number; error: string } {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, error: `request headers are larger than ${maxHeaderBytes / 1024} KiB` };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, error: "the request was not received in time" };
    default:
      return { status: 400, error: `malformed HTTP request: ${error.message}` };
  }
}

const CLIENT_ERROR_REASONS: Readonly<Record<number, string>> = {
  400: "Bad Request",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
};

/**
 * The whole answer, as written on the socket, to a request Node's HTTP parser refused: the
 * status of `httpClientErrorReply`, a JSON {error}, the server's own `headers`; the connection
 * then closes.
 */
export function httpClientErrorAnswer(
  error: { code?: string; message: string },
  maxHeaderBytes: number,
  headers: Readonly<Record<string, string>> = {},
): string {
  const { status, error: message } = httpClientErrorReply(error, maxHeaderBytes);
  const body = JSON.stringify({ error: message });
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return (
    `HTTP/1.1 ${status} ${CLIENT_ERROR_REASONS[status] ?? ""}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `${lines.join("")}Content-Length: ${new TextEncoder().encode(body).length}\r\nConnection: close\r\n\r\n${body}`
  );
}

/**
 * How long a connection closed after an answer keeps reading what the client still sends (its
 * lingering close, as nginx's `lingering_close`): closing with unread bytes makes the kernel send
 * a reset, and a client still sending its body loses the answer it was sent. Bounded in bytes and
 * time so that a client cannot hold the connection open or make the server read without end
 * (docs/security.md): 4 MiB covers the largest body a server of svc refuses unread (the API's
 * 1 MiB limit) with room; 2 s, a client on loopback or a LAN sends that in far less.
 */
export interface LingerLimits {
  maxBytes: number;
  maxMs: number;
}

export const LINGER_LIMITS: LingerLimits = { maxBytes: 4 * 1024 * 1024, maxMs: 2_000 };

/**
 * Whether a lingering connection reads on or closes now: it closes once the client has ended its
 * side (nothing more can arrive), or has sent more than the limit, or the time is up.
 */
export function lingerStep(
  lingering: { drainedBytes: number; elapsedMs: number; clientEnded: boolean },
  limits: LingerLimits = LINGER_LIMITS,
): "read" | "close" {
  if (lingering.clientEnded) return "close";
  if (lingering.drainedBytes > limits.maxBytes || lingering.elapsedMs >= limits.maxMs) return "close";
  return "read";
}

/** What a webhook may subscribe to (docs/webhooks.md "Events"): the API and the dashboard alike. */
export const WEBHOOK_EVENTS = [
  "flag.created",
  "flag.changed",
  "flag.deleted",
  "delivery.failed",
  "cluster.disconnected",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];
/** A webhook's body: the event as JSON, or Slack's `{"text"}`. */
export const WEBHOOK_FORMATS = ["json", "slack"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** A FlagRollout's phases (docs/safe-changes.md), here so that the dashboard shares them. */
export const ROLLOUT_PHASES = [
  "Pending",
  "AwaitingApproval",
  "Scheduled",
  "Progressing",
  "Paused",
  "RollingBack",
  "Succeeded",
  "RolledBack",
  "Rejected",
  "Failed",
] as const;
export type RolloutPhase = (typeof ROLLOUT_PHASES)[number];
/** Phases a plan never leaves. */
export const FINISHED_ROLLOUT_PHASES: readonly RolloutPhase[] = [
  "Succeeded",
  "RolledBack",
  "Rejected",
  "Failed",
];

export const WAVE_PHASES = ["Pending", "Applying", "Baking", "Succeeded", "Failed", "RolledBack"] as const;
export type WavePhase = (typeof WAVE_PHASES)[number];
/** Waiting: a workload a wave holds back until its canary workloads passed. */
export const WORKLOAD_HEALTH = ["Healthy", "Progressing", "Unhealthy", "Waiting"] as const;
export type WorkloadHealthState = (typeof WORKLOAD_HEALTH)[number];
