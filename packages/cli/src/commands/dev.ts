import { mkdir, mkdtemp, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { FlagView } from "@svc/core";
import { validOrThrow, type Validated } from "@svc/core/schema/field-errors";
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
import { parseOperatorConfig, runOperator, type RunningOperator } from "@svc/operator";
import { buildDashboardServer, parseDashboardConfig } from "@svc/dashboard";
import { part, runProcess, startGroups, type ProcessHost, type StartedGroups } from "@svc/process";
import { configFromEnv, runSidecar, type RunningSidecar } from "@svc/sidecar";
import { DevApiClient } from "../dev/api-client.ts";
import { devBanner, type BannerCluster } from "../dev/banner.ts";
import { kubeconfigCluster, prepareHub, startLocalCluster, type DevCluster } from "../dev/clusters.ts";
import { createDemoWorkloads, DEMO_NAMESPACE, demoFlags, demoPods, type DemoPod } from "../dev/demo.ts";
import { startDevApi, type DevApi } from "./api.ts";

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

export function parseDevSettings(env: Environment): Validated<DevSettings> {
  const read = settingsReader(env);
  return read.result({
    dir: resolve(read.text("SVC_DEV_DIR", ".dev")),
    clusters: read.integer("SVC_DEV_CLUSTERS", 1, { min: 1, max: 2 }),
    useKubeconfig: read.boolean("SVC_DEV_KUBECONFIG", false),
    node: read.boolean("SVC_DEV_NODE", true),
  });
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

/**
 * svc dev's process: as every svc command's, except that the local clusters' exit hooks own the
 * signals (they must kill root processes whatever happens), so the stop is a shutdown step of
 * theirs (startServices) and exiting runs them.
 */
const devProcess: ProcessHost = {
  env: process.env,
  writeError: (line) => process.stderr.write(`${line}\n`),
  onSignal: () => undefined,
  exit: (code) => process.exit(code),
};

/** `svc dev`: the whole product on this machine, with demo data, until Ctrl-C or SIGTERM. */
export function runDev(env: Environment = process.env): Promise<void> {
  return runProcess(
    {
      command: "svc dev",
      parse: parseDevSettings,
      start: async (settings) => {
        await startEverything(settings, env);
        // Runs until a signal, with or without a terminal: the exit hooks then stop every process
        // and remove the run's folder (and, in your own cluster, what svc dev created there).
        setInterval(() => undefined, 2 ** 30);
        return { close: () => Promise.resolve() };
      },
    },
    { ...devProcess, env },
  );
}

/** A folder for this run (control planes, node, database), removed when it stops. */
async function makeRunDir(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  // A run killed with SIGKILL left its folder, and its components still running from it.
  const notRemoved = describeFailures(reclaimStale(dir, "run-"));
  if (notRemoved !== "") process.stderr.write(`svc dev: an earlier run's leftovers: ${notRemoved}\n`);
  const runDir = await mkdtemp(join(dir, "run-"));
  markOwner(runDir);
  removeOnExit(runDir);
  return runDir;
}

/** Whether the demo pods really run: a node needs root, Debian's containerd (make node-deps) and the images (make images). */
function withLocalNode(settings: DevSettings): boolean {
  if (!settings.node || settings.useKubeconfig) return false;
  const missing = localNodeUnavailable({ imageArchives: localImageArchives() });
  if (missing.length > 0)
    process.stdout.write(
      `svc dev: no local node, so the demo pods stay Pending (SVC_DEV_NODE=false hides this). Missing:\n- ${missing.join("\n- ")}\n`,
    );
  return missing.length === 0;
}

async function startClusters(
  settings: DevSettings,
  runDir: string,
  env: Environment,
  withNode: boolean,
): Promise<[DevCluster, DevCluster | undefined]> {
  process.stdout.write(
    settings.useKubeconfig
      ? "svc dev: using the cluster of KUBECONFIG...\n"
      : `svc dev: starting ${settings.clusters === 2 ? "two local control planes" : "a local control plane"} (etcd, kube-apiserver, kube-controller-manager)${withNode ? " and a node (containerd, kubelet, kube-scheduler, kube-proxy)" : ""}...\n`,
  );
  return Promise.all([
    settings.useKubeconfig ? kubeconfigCluster(env) : startLocalCluster(runDir, { withNode }),
    settings.clusters === 2 ? startLocalCluster(runDir) : undefined,
  ]);
}

/** Registers the second local control plane through the API and fills its demo. */
async function addSecondCluster(client: DevApiClient, second: DevCluster): Promise<void> {
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

interface DevServices {
  api: DevApi;
  operator: RunningOperator;
  hubId: string;
  client: DevApiClient | undefined;
  sidecar: RunningSidecar | undefined;
  dashboardUrl: string;
}

/**
 * svc's processes in the order they need each other, and the demo once the operator delivers;
 * `starting` gets them before they are up, so that the caller's shutdown step can stop them.
 */
async function startServices(
  runDir: string,
  env: Environment,
  [hub, second]: [DevCluster, DevCluster | undefined],
  withNode: boolean,
  starting: (running: StartedGroups) => void,
): Promise<DevServices> {
  const settings = (own: Environment, fixed: Environment): Environment => ({ ...own, ...env, ...fixed });
  const api = part(
    "API",
    () => startDevApi(runDir, hub.kubeconfigPath, env),
    (started) => started.close(),
  );
  const operatorConfig = validOrThrow(
    parseOperatorConfig(
      settings(
        { SVC_OPERATOR_METRICS_HOST: "127.0.0.1", SVC_LOG_LEVEL: "warn" },
        { KUBECONFIG: hub.kubeconfigPath },
      ),
    ),
  );
  const operator = part(
    "operator",
    async () => {
      const started = await runOperator(operatorConfig);
      await started.ready;
      return started;
    },
    (started) => started.close(),
  );
  const demo = part("demo", async () => {
    const password = api.value.adminPassword;
    const client =
      password === undefined ? undefined : await DevApiClient.login(api.value.url, "admin", password);
    await fillDemo(client, hub, operatorConfig.clusterId);
    if (second !== undefined && client !== undefined) await addSecondCluster(client, second);
    return client;
  });
  // With a node, the operator's sidecar runs in the demo DaemonSet's pod; without one, the same
  // sidecar runs here, for the demo namespace.
  const sidecar = part(
    "sidecar",
    async () => {
      if (withNode) return undefined;
      const config = settings(
        { SVC_SIDECAR_HOST: "127.0.0.1", SVC_LOG_LEVEL: "warn" },
        { POD_NAMESPACE: DEMO_NAMESPACE, KUBECONFIG: hub.kubeconfigPath },
      );
      const started = await runSidecar(validOrThrow(configFromEnv(config)));
      await started.ready;
      return started;
    },
    async (started) => started?.close(),
  );
  const dashboard = part(
    "dashboard",
    async () => {
      const config = settings(
        { SVC_DASHBOARD_HOST: "127.0.0.1", SVC_LOG_LEVEL: "warn" },
        { SVC_API_URL: api.value.url },
      );
      const server = await buildDashboardServer(validOrThrow(parseDashboardConfig(config)));
      return { server, url: (await server.listen()).url };
    },
    (started) => started.server.close(),
  );
  const running = startGroups([[api], [operator], [demo], [sidecar], [dashboard]]);
  starting(running);
  await running.ready;
  return {
    api: api.value,
    operator: operator.value,
    hubId: operatorConfig.clusterId,
    client: demo.value,
    sidecar: sidecar.value,
    dashboardUrl: dashboard.value.url,
  };
}

/** The banner's view of a cluster: where it is, and its demo flags once delivered. */
async function bannerCluster(
  client: DevApiClient | undefined,
  cluster: DevCluster,
  id: string,
): Promise<BannerCluster> {
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
}

/** Starts the clusters, svc's processes and the demo, and prints the banner. */
async function startEverything(settings: DevSettings, env: Environment): Promise<void> {
  const runDir = await makeRunDir(settings.dir);
  const started = Date.now();
  const withNode = withLocalNode(settings);
  const clusters = await startClusters(settings, runDir, env, withNode);
  const [hub, second] = clusters;
  // On Ctrl-C svc's processes stop (the last started first) after what svc dev created in your
  // cluster is removed (prepareHub's step: the operator takes its finalizers off the demo flags)
  // and before the clusters they talk to stop (the operator releases its Lease instead of failing
  // to renew it): shutdown steps run newest first, so this one is registered before prepareHub's.
  let running: StartedGroups | undefined;
  onShutdownSignal(async () => {
    await running?.close().catch(() => undefined);
  });
  await prepareHub(hub);
  const services = await startServices(runDir, env, clusters, withNode, (started) => (running = started));
  const { client, hubId } = services;
  const banner = [await bannerCluster(client, hub, hubId)] as [BannerCluster, ...BannerCluster[]];
  const pods: DemoPod[] = withNode ? await demoPods(hub.kubeConfig, PODS_WAIT_MS) : [];
  if (second !== undefined) banner.push(await bannerCluster(client, second, SECOND_CLUSTER_ID));
  process.stdout.write(
    devBanner({
      dashboardUrl: services.dashboardUrl,
      apiUrl: services.api.url,
      apiMetricsUrl: services.api.metricsUrl,
      sidecarUrl: services.sidecar?.url,
      demoPods: pods,
      operatorMetricsUrl: services.operator.metricsUrl,
      adminPassword: services.api.adminPassword,
      kubectlPath: join(defaultBinDir(), "kubectl"),
      demoNamespace: DEMO_NAMESPACE,
      clusters: banner,
    }),
  );
  process.stdout.write(`svc dev: ready in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
