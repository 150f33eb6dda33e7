// Settings of `svc sidecar`, from the environment (the operator sets them in the injected
// container), and how to reach the Kubernetes API.
import { DEFAULT_SIDECAR_PORT } from "@svc/core/basics";

export interface SidecarConfig {
  /** The namespace whose FeatureFlags are served (the pod's own, via the downward API). */
  namespace: string;
  port: number;
  /** Address to listen on; all interfaces by default so the pod's other containers reach it. */
  host: string;
  /** Path of a kubeconfig; unset inside a pod, where the ServiceAccount is used. */
  kubeconfigPath: string | undefined;
  heartbeatMs: number;
  logLevel: string;
}

const DEFAULT_HEARTBEAT_MS = 15_000;

function portFrom(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined || text === "") return fallback;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`${name} must be a port number (0-65535), got ${JSON.stringify(text)}`);
  }
  return port;
}

/** Reads the configuration; throws a message naming the variable when one is wrong. */
export function configFromEnv(env: Record<string, string | undefined>): SidecarConfig {
  const namespace = env["POD_NAMESPACE"];
  if (namespace === undefined || namespace === "") {
    throw new Error(
      "POD_NAMESPACE must name the namespace whose flags to serve (the downward API sets it in a pod)",
    );
  }
  const heartbeat = env["SVC_SIDECAR_HEARTBEAT_MS"];
  const heartbeatMs = heartbeat === undefined || heartbeat === "" ? DEFAULT_HEARTBEAT_MS : Number(heartbeat);
  if (!Number.isInteger(heartbeatMs) || heartbeatMs < 100) {
    throw new Error(`SVC_SIDECAR_HEARTBEAT_MS must be an integer ≥ 100, got ${JSON.stringify(heartbeat)}`);
  }
  const kubeconfig = env["KUBECONFIG"];
  return {
    namespace,
    port: portFrom(env["SVC_SIDECAR_PORT"], "SVC_SIDECAR_PORT", DEFAULT_SIDECAR_PORT),
    host: env["SVC_SIDECAR_HOST"] || "0.0.0.0",
    // KUBECONFIG may list several files; the first one is used (merging is kubectl's business).
    kubeconfigPath: kubeconfig === undefined || kubeconfig === "" ? undefined : kubeconfig.split(":")[0],
    heartbeatMs,
    logLevel: env["SVC_LOG_LEVEL"] || "info",
  };
}
