// Settings of `svc sidecar`, from the environment (the operator sets them in the injected
// container), read by the shared strict reader of @svc/core/settings.
import { DEFAULT_SIDECAR_PORT, SIDECAR_POD_LABELS_FILE, SIDECAR_PODINFO_MOUNT } from "@svc/core/vocabulary";
import type { Validated } from "@svc/core/schema/field-errors";
import { LOG_LEVELS, settingsReader, type Environment, type LogLevel } from "@svc/core/schema/settings";

export interface SidecarConfig {
  /** The namespace whose FeatureFlags are served (the pod's own, via the downward API). */
  namespace: string;
  port: number;
  /** Address to listen on; all interfaces by default, so that the kubelet's probes reach it. */
  host: string;
  /**
   * Whether clients other than the pod's own containers (anything not on loopback) may read the
   * flags. Off by default: a pod IP is reachable from every namespace, and a sidecar's flags are
   * its namespace's. /healthz and /metrics answer everyone. docs/security.md.
   */
  remoteReads: boolean;
  /** Path of a kubeconfig; unset inside a pod, where the ServiceAccount is used. */
  kubeconfigPath: string | undefined;
  heartbeatMs: number;
  logLevel: LogLevel;
  /**
   * The downward API file of the pod's labels: a pod outside a rollout's canary step serves the
   * flag as it was. Without the file every such flag is served as it was until the step ends.
   */
  podLabelsPath?: string | undefined;
}

const DEFAULT_HEARTBEAT_MS = 15_000;
const HEARTBEAT_RANGE = { min: 100, max: 3_600_000 };

/** Reads the configuration, or every variable that is wrong. */
export function configFromEnv(env: Environment): Validated<SidecarConfig> {
  const read = settingsReader(env);
  const namespace = read.text("POD_NAMESPACE", "");
  if (namespace === "") {
    read.problem(
      "POD_NAMESPACE",
      "must name the namespace whose flags to serve (the downward API sets it in a pod)",
    );
  }
  const config: SidecarConfig = {
    namespace,
    port: read.port("SVC_SIDECAR_PORT", DEFAULT_SIDECAR_PORT),
    host: read.text("SVC_SIDECAR_HOST", "0.0.0.0"),
    remoteReads: read.boolean("SVC_SIDECAR_REMOTE_READS", false),
    // KUBECONFIG may list several files; the first one is used (merging is kubectl's business).
    kubeconfigPath: read.text("KUBECONFIG", "").split(":")[0] || undefined,
    heartbeatMs: read.durationMs("SVC_SIDECAR_HEARTBEAT_MS", DEFAULT_HEARTBEAT_MS, HEARTBEAT_RANGE),
    logLevel: read.oneOf("SVC_LOG_LEVEL", LOG_LEVELS, "info"),
    podLabelsPath: read.text("SVC_SIDECAR_POD_LABELS", `${SIDECAR_PODINFO_MOUNT}/${SIDECAR_POD_LABELS_FILE}`),
  };
  return read.result(config);
}
