// What `svc dev` prints once everything runs: where each part answers, how to log in, and
// whether the demo flags were delivered. A pure function of what was started.
import { deliveryKind, type FlagView } from "@svc/core";
import { DEMO_APP_PORT, DEMO_SIDECAR_PORT, type DemoPod } from "./demo.ts";

export interface BannerCluster {
  id: string;
  server: string;
  kubeconfigPath: string;
  /** Log folder of a local control plane; undefined for your own cluster. */
  logsDir: string | undefined;
  /** The local node's folder (its components' logs), when one runs the demo pods. */
  nodeLogsDir?: string | undefined;
  demoFlags: readonly FlagView[];
}

export interface BannerInput {
  dashboardUrl: string;
  apiUrl: string;
  apiMetricsUrl: string;
  /** The sidecar svc dev runs itself when no node runs pods; undefined when it is in the demo pod. */
  sidecarUrl: string | undefined;
  /** The hub's demo pods on the local node (none without a node). */
  demoPods: readonly DemoPod[];
  operatorMetricsUrl: string;
  /** The admin password in force, or undefined when an earlier database keeps its own. */
  adminPassword: string | undefined;
  kubectlPath: string;
  demoNamespace: string;
  /** The hub first. */
  clusters: readonly [BannerCluster, ...BannerCluster[]];
}

const LABEL_WIDTH = 17;

function row(label: string, text: string): string {
  return `  ${label.padEnd(LABEL_WIDTH)}${text}`;
}

/** Rows under one label: the label on the first only. */
function rows(label: string, texts: readonly string[]): string[] {
  return texts.map((text, index) => row(index === 0 ? label : "", text));
}

export function devBanner(input: BannerInput): string {
  const [hub] = input.clusters;
  const login =
    input.adminPassword === undefined
      ? "user admin, with the password kept in the database of an earlier run (svc reset-admin-password sets one)"
      : `user admin, password ${input.adminPassword}`;
  const flagRows = input.clusters.flatMap((cluster) =>
    cluster.demoFlags.map((flag) =>
      `${cluster.id}/${flag.name} (${deliveryKind(flag.delivery)}): ${flag.status.phase}  ${flag.status.message}`.trimEnd(),
    ),
  );
  const logs = input.clusters.flatMap((cluster) => [
    ...(cluster.logsDir === undefined ? [] : [`${cluster.logsDir}/*.log  (${cluster.id})`]),
    ...(cluster.nodeLogsDir === undefined ? [] : [`${cluster.nodeLogsDir}/*.log  (${cluster.id}'s node)`]),
  ]);
  const agent = input.demoPods.find((pod) => pod.name.startsWith("log-agent-") && pod.ip !== undefined);
  const sidecar =
    input.sidecarUrl !== undefined
      ? `${input.sidecarUrl}/flags  (stream: ${input.sidecarUrl}/flags/stream)`
      : agent === undefined
        ? "in the pod of DaemonSet log-agent (not running yet)"
        : `in pod ${agent.name}, on 127.0.0.1:${DEMO_SIDECAR_PORT} for its own containers only; its page http://${agent.ip}:${DEMO_APP_PORT} shows what it serves`;
  const podRows = input.demoPods.map((pod) =>
    `${pod.name.padEnd(24)}${pod.ready ? "Ready    " : "not Ready"}  ${pod.ip === undefined ? "" : `http://${pod.ip}:${DEMO_APP_PORT}  (the flags it sees)`}`.trimEnd(),
  );
  return [
    "",
    "svc dev is running. Press Ctrl-C to stop (everything below is removed then).",
    "",
    row("dashboard", `${input.dashboardUrl}  (${login})`),
    row("REST API", `${input.apiUrl}  (same login; metrics ${input.apiMetricsUrl}/metrics)`),
    row("sidecar (demo)", sidecar),
    row("operator", `metrics ${input.operatorMetricsUrl}/metrics`),
    ...rows(
      "clusters",
      input.clusters.map(
        (cluster) => `${cluster.id}  ${cluster.server}  (kubeconfig ${cluster.kubeconfigPath})`,
      ),
    ),
    row("kubeconfig", hub.kubeconfigPath),
    row("try", `${input.kubectlPath} --kubeconfig ${hub.kubeconfigPath} get featureflags -A`),
    row(
      "demo data",
      `namespace ${input.demoNamespace}: Deployment web, StatefulSet cache, DaemonSet log-agent, and these flags:`,
    ),
    ...rows("", flagRows.length > 0 ? flagRows : ["none (could not log in to create them)"]),
    ...rows("demo pods", podRows.length > 0 ? podRows : ["none running (no local node: they stay Pending)"]),
    ...rows("logs", logs.length > 0 ? logs : ["here (the control plane is your own cluster)"]),
    "",
  ].join("\n");
}
