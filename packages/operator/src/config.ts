// Settings of `svc operator`, from the environment, read once by the shared strict reader.
import { isDns1123Label, readDeliveryPolicy, SYSTEM_NAMESPACE, type DeliveryPolicy } from "@svc/core";
import {
  LOG_LEVELS,
  settingsReader,
  type Environment,
  type LogLevel,
  type SettingsReader,
} from "@svc/core/schema/settings";
import type { Validated } from "@svc/core/schema/field-errors";
import { imageReferenceProblem, quantityValue } from "./sidecar-syntax.ts";
import type { SidecarSettings } from "./workload-apply.ts";

export interface OperatorConfig {
  /** SVC_CLUSTER_ID: the id of the cluster the operator runs in. */
  clusterId: string;
  systemNamespace: string;
  /** Path of a kubeconfig; unset inside a pod, where the ServiceAccount is used. */
  kubeconfigPath: string | undefined;
  /** Keys reconciled at once in each cluster (every cluster has its own queue and workers). */
  concurrency: number;
  /** Rescan period of a cluster that has no ClusterConnection (those have their resyncPeriod). */
  resyncMs: number;
  /** Bound on each call to a cluster. */
  requestTimeoutMs: number;
  /** Port of /metrics, /healthz and /readyz (0: any free port). */
  metricsPort: number;
  metricsHost: string;
  /** Whether to act only while holding the Lease svc-operator in systemNamespace. */
  leaderElection: boolean;
  /** Whether every replica acts, each on the clusters whose Lease it holds (sharding.ts); replaces leader election. */
  sharding: boolean;
  /** This replica's name in the Lease (the pod name in a cluster). */
  identity: string;
  leaseDurationMs: number;
  sidecar: SidecarSettings;
  /** Where flags are never delivered and which env var names they may set (docs/delivery.md). */
  delivery: DeliveryPolicy;
  logLevel: LogLevel;
}

export const DEFAULT_OPERATOR_METRICS_PORT = 9091;
/** The minimal sidecar image of deploy/Dockerfile (target sidecar: svc on Bun). */
export const DEFAULT_SIDECAR_IMAGE = "ghcr.io/svc-io/svc-sidecar:0.1.0";

/** Reads the configuration, or every variable that is wrong. */
export function parseOperatorConfig(env: Environment): Validated<OperatorConfig> {
  const read = settingsReader(env);
  const clusterId = read.text("SVC_CLUSTER_ID", "local");
  const systemNamespace = read.text("SVC_NAMESPACE", SYSTEM_NAMESPACE);
  for (const [name, value] of [
    ["SVC_CLUSTER_ID", clusterId],
    ["SVC_NAMESPACE", systemNamespace],
  ] as const)
    if (!isDns1123Label(value)) read.problem(name, `must be a DNS-1123 label, got ${JSON.stringify(value)}`);
  const config: OperatorConfig = {
    clusterId,
    systemNamespace,
    kubeconfigPath: read.text("KUBECONFIG", "").split(":")[0] || undefined,
    concurrency: read.integer("SVC_OPERATOR_CONCURRENCY", 16, { min: 1, max: 1024 }),
    resyncMs: read.durationMs("SVC_OPERATOR_RESYNC", 600_000, { min: 10_000, max: 86_400_000 }),
    requestTimeoutMs: read.durationMs("SVC_OPERATOR_REQUEST_TIMEOUT", 10_000, { min: 100, max: 300_000 }),
    metricsPort: read.port("SVC_OPERATOR_METRICS_PORT", DEFAULT_OPERATOR_METRICS_PORT),
    metricsHost: read.text("SVC_OPERATOR_METRICS_HOST", "0.0.0.0"),
    leaderElection: read.boolean("SVC_OPERATOR_LEADER_ELECTION", true),
    sharding: read.boolean("SVC_OPERATOR_SHARDING", false),
    identity: read.text("SVC_OPERATOR_IDENTITY", env["HOSTNAME"] ?? "") || `svc-operator-${process.pid}`,
    leaseDurationMs: read.durationMs("SVC_OPERATOR_LEASE_DURATION", 15_000, { min: 2_000, max: 300_000 }),
    sidecar: readSidecarSettings(read),
    delivery: readDeliveryPolicy(read, systemNamespace),
    logLevel: read.oneOf("SVC_LOG_LEVEL", LOG_LEVELS, "info"),
  };
  return read.result(config);
}

/**
 * The sidecar's image and resources, checked here so that a typo stops the start with the
 * variable's name instead of failing every workload apply (422) or every pod (InvalidImageName).
 */
function readSidecarSettings(read: SettingsReader): SidecarSettings {
  const image = read.text(
    "SVC_SIDECAR_IMAGE",
    DEFAULT_SIDECAR_IMAGE,
    "an image reference (name:tag or name@sha256:…)",
  );
  const imageProblem = imageReferenceProblem(image);
  if (imageProblem !== undefined) read.problem("SVC_SIDECAR_IMAGE", imageProblem);
  const quantity = (name: string, fallback: string) => {
    const text = read.text(name, fallback, "a Kubernetes quantity (100m, 0.5, 64Mi)");
    const value = quantityValue(text);
    if (value === undefined)
      read.problem(
        name,
        `must be a Kubernetes quantity such as 100m, 0.5 or 64Mi, got ${JSON.stringify(text)}`,
      );
    return { name, text, value };
  };
  const cpu = {
    request: quantity("SVC_SIDECAR_CPU_REQUEST", "10m"),
    limit: quantity("SVC_SIDECAR_CPU_LIMIT", "100m"),
  };
  // Measured on Bun (docs/container-images.md): ~55 MB with a few flags, 100 MB VmRSS with 5,000
  // flags after load; the limit leaves headroom above that.
  const memory = {
    request: quantity("SVC_SIDECAR_MEMORY_REQUEST", "64Mi"),
    limit: quantity("SVC_SIDECAR_MEMORY_LIMIT", "160Mi"),
  };
  // The kube-apiserver refuses a request above its limit (422).
  for (const { request, limit } of [cpu, memory])
    if (request.value !== undefined && limit.value !== undefined && request.value > limit.value)
      read.problem(
        request.name,
        `must not exceed ${limit.name} (${limit.text}), got ${JSON.stringify(request.text)}`,
      );
  return {
    image,
    resources: {
      requests: { cpu: cpu.request.text, memory: memory.request.text },
      limits: { cpu: cpu.limit.text, memory: memory.limit.text },
    },
  };
}
