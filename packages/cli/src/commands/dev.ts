import { mkdir, mkdtemp, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describeErrors, type FlagView } from "@svc/core";
import { settingsReader, type Environment } from "@svc/core/schema/settings";
import { installCrds } from "@svc/kube";
import {
  defaultBinDir,
  describeFailures,
  localImageArchives,
  localNodeUnavailable,
  markOwner,
  onShutdownSignal,
  reclaimStale,
  removeOnExit,
} from "@svc/localkube";
import { parseOperatorConfig, runOperator } from "@svc/operator";
import { buildDashboardServer, parseDashboardConfig } from "@svc/dashboard";
import { configFromEnv, runSidecar } from "@svc/sidecar";
import { DevApiClient } from "../dev/api-client.ts";
import { devBanner, type BannerCluster } from "../dev/banner.ts";
import { kubeconfigCluster, prepareHub, startLocalCluster, type DevCluster } from "../dev/clusters.ts";
import { createDemoWorkloads, DEMO_NAMESPACE, demoFlags, demoPods, type DemoPod } from "../dev/demo.ts";
import { startDevApi } from "./api.ts";

/** The id of the second cluster of `make dev CLUSTERS=2`. */
const SECOND_CLUSTER_ID = "east";
/** Bound on waiting for the operator to deliver the demo flags before the banner shows their phase. */
const DELIVERY_WAIT_MS = 60_000;
/** Bound on waiting for the demo pods to be Ready (a rolling update after each delivery). */
const PODS_WAIT_MS = 90_000;

interface DevSettings {
  /** Where each run's folder (control planes, database) is made. */
  dir: string;
  /** 1, or 2 for a second local control plane registered as a remote cluster. */
  clusters: number;
  /** Use the cluster of KUBECONFIG as the hub instead of starting one. */
  useKubeconfig: boolean;
  /** Run a local node beside the hub's control plane, so that the demo pods really run. */
  node: boolean;
}

export function parseDevSettings(env: Environment): DevSettings {
  const read = settingsReader(env);
  const settings = {
    dir: resolve(read.text("SVC_DEV_DIR", ".dev")),
    clusters: read.integer("SVC_DEV_CLUSTERS", 1, { min: 1, max: 2 }),
    useKubeconfig: read.boolean("SVC_DEV_KUBECONFIG", false),
    node: read.boolean("SVC_DEV_NODE", true),
  };
  if (read.errors.length > 0) throw new Error(describeErrors(read.errors));
  return settings;
}

/** Demo workloads in the cluster, and its demo flags created through the API. */
async function fillDemo(
  client: DevApiClient | undefined,
  cluster: DevCluster,
  clusterId: string,
): Promise<void> {
  await createDemoWorkloads(cluster.kubeConfig);
  if (client === undefined) return;
  for (const flag of demoFlags(clusterId)) await client.createFlag(flag);
}

/** `svc dev`: the whole product on this machine, with demo data, until Ctrl-C or SIGTERM. */
export async function runDev(env: Environment = process.env): Promise<void> {
  let settings: DevSettings;
  try {
    settings = parseDevSettings(env);
  } catch (error) {
    process.stderr.write(`svc dev: invalid configuration: ${(error as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  try {
    await startEverything(settings, env);
  } catch (error) {
    // The reason, not a stack trace; exiting runs the exit hooks, which remove what was started.
    process.stderr.write(`svc dev: cannot start: ${(error as Error).message}\n`);
    process.exit(1);
  }
}

/** Starts the clusters, svc's processes and the demo, and prints the banner. */
async function startEverything(settings: DevSettings, env: Environment): Promise<void> {
  await mkdir(settings.dir, { recursive: true });
  // A run killed with SIGKILL left its folder, and its components still running from it.
  const notRemoved = describeFailures(reclaimStale(settings.dir, "run-"));
  if (notRemoved !== "") process.stderr.write(`svc dev: an earlier run's leftovers: ${notRemoved}\n`);
  // Everything of this run (control planes, node, database) lives here and goes when it stops.
  const runDir = await mkdtemp(join(settings.dir, "run-"));
  markOwner(runDir);
  removeOnExit(runDir);

  const started = Date.now();
  // The node needs root and Debian's containerd (make node-deps) and the images (make images).
  const missing =
    settings.node && !settings.useKubeconfig
      ? localNodeUnavailable({ imageArchives: localImageArchives() })
      : [];
  const withNode = settings.node && !settings.useKubeconfig && missing.length === 0;
  if (missing.length > 0)
    process.stdout.write(
      `svc dev: no local node, so the demo pods stay Pending (SVC_DEV_NODE=false hides this). Missing:\n- ${missing.join("\n- ")}\n`,
    );
  process.stdout.write(
    settings.useKubeconfig
      ? "svc dev: using the cluster of KUBECONFIG...\n"
      : `svc dev: starting ${settings.clusters === 2 ? "two local control planes" : "a local control plane"} (etcd, kube-apiserver, kube-controller-manager)${withNode ? " and a node (containerd, kubelet, kube-scheduler, kube-proxy)" : ""}...\n`,
  );
  const [hub, second] = await Promise.all([
    settings.useKubeconfig ? kubeconfigCluster(env) : startLocalCluster(runDir, { withNode }),
    settings.clusters === 2 ? startLocalCluster(runDir) : undefined,
  ]);
  // On Ctrl-C, svc's processes stop (the last started first) after what svc dev created in your
  // cluster is removed (the operator takes its finalizers off the demo flags) and before the
  // clusters they talk to stop (the operator releases its Lease instead of failing to renew it):
  // shutdown steps run newest first.
  const running: { close: () => Promise<void> }[] = [];
  onShutdownSignal(async () => {
    for (const part of running.reverse()) await part.close().catch(() => undefined);
  });
  await prepareHub(hub);

  const api = await startDevApi(runDir, hub.kubeconfigPath, env);
  running.push(api);
  const operatorConfig = parseOperatorConfig({
    SVC_OPERATOR_METRICS_HOST: "127.0.0.1",
    SVC_LOG_LEVEL: "warn",
    ...env,
    KUBECONFIG: hub.kubeconfigPath,
  });
  const operator = await runOperator(operatorConfig);
  running.push(operator);
  await operator.ready;

  const client =
    api.adminPassword === undefined
      ? undefined
      : await DevApiClient.login(api.url, "admin", api.adminPassword);
  const hubId = operatorConfig.clusterId;
  await fillDemo(client, hub, hubId);
  if (second !== undefined && client !== undefined) {
    // The operator would install the CRDs there too; doing it first spares the API's registry a
    // round of back-off before it can create the demo flags.
    await installCrds(second.kubeConfig);
    await client.registerCluster({
      id: SECOND_CLUSTER_ID,
      displayName: "East (second local control plane)",
      apiServer: second.server,
      authMethod: "kubeconfig",
      kubeconfig: await readFile(second.kubeconfigPath, "utf8"),
    });
    await client.waitConnected(SECOND_CLUSTER_ID, DELIVERY_WAIT_MS);
    await fillDemo(client, second, SECOND_CLUSTER_ID);
  }

  // With a node, the operator's sidecar runs in the demo DaemonSet's pod; without one, the same
  // sidecar runs here, for the demo namespace.
  const sidecar = withNode
    ? undefined
    : await runSidecar(
        configFromEnv({
          SVC_SIDECAR_HOST: "127.0.0.1",
          SVC_LOG_LEVEL: "warn",
          ...env,
          POD_NAMESPACE: DEMO_NAMESPACE,
          KUBECONFIG: hub.kubeconfigPath,
        }),
      );
  if (sidecar !== undefined) running.push(sidecar);
  await sidecar?.ready;
  const dashboardConfig = parseDashboardConfig({
    SVC_DASHBOARD_HOST: "127.0.0.1",
    SVC_LOG_LEVEL: "warn",
    ...env,
    SVC_API_URL: api.url,
  });
  if (!dashboardConfig.ok)
    throw new Error(`invalid dashboard configuration: ${describeErrors(dashboardConfig.errors)}`);
  const dashboardServer = await buildDashboardServer(dashboardConfig.value);
  const dashboard = await dashboardServer.listen();
  running.push(dashboardServer);

  const bannerCluster = async (cluster: DevCluster, id: string): Promise<BannerCluster> => {
    const flags: FlagView[] =
      client === undefined ? [] : await client.settledFlags(id, DEMO_NAMESPACE, DELIVERY_WAIT_MS);
    return {
      id,
      server: cluster.server,
      kubeconfigPath: cluster.kubeconfigPath,
      logsDir: cluster.logsDir,
      nodeLogsDir: cluster.nodeLogsDir,
      demoFlags: flags,
    };
  };
  const clusters = [await bannerCluster(hub, hubId)] as [BannerCluster, ...BannerCluster[]];
  const pods: DemoPod[] = withNode ? await demoPods(hub.kubeConfig, PODS_WAIT_MS) : [];
  if (second !== undefined) clusters.push(await bannerCluster(second, SECOND_CLUSTER_ID));
  process.stdout.write(
    devBanner({
      dashboardUrl: dashboard.url,
      apiUrl: api.url,
      apiMetricsUrl: api.metricsUrl,
      sidecarUrl: sidecar?.url,
      demoPods: pods,
      operatorMetricsUrl: operator.metricsUrl,
      adminPassword: api.adminPassword,
      kubectlPath: join(defaultBinDir(), "kubectl"),
      demoNamespace: DEMO_NAMESPACE,
      clusters,
    }),
  );
  process.stdout.write(`svc dev: ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  // Runs until a signal, with or without a terminal: the exit hooks then stop every process
  // and remove the run's folder (and, in your own cluster, what svc dev created there).
  setInterval(() => undefined, 2 ** 30);
}
