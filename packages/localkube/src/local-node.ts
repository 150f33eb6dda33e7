/**
 * A real node joined to a local control plane: containerd (all its state in the node's folder),
 * kubelet, kube-scheduler and kube-proxy (iptables mode) built from the control plane's pinned
 * Kubernetes module, and a bridge CNI network. Pods really run, on images imported from archives
 * built here (make images). One node runs per machine: it owns a bridge and iptables chains.
 *
 * stop() cordons the node and deletes its pods through the API first, so that the kubelet tears
 * their sandboxes down (network namespaces, veths, CNI rules), then stops everything and removes
 * what is left on the machine; a crashed run gets the same removal, without the API, on exit.
 */
import { execFile, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { CoreV1Api, type V1Node } from "@kubernetes/client-node";
import { freeLoopbackPort, isReady, waitFor } from "@svc/kube";
import {
  onShutdownSignal,
  putInPlace,
  runOnExit,
  superviseProcess,
  type SupervisedProcess,
} from "./child-process.ts";
import { probe } from "./control-plane-access.ts";
import { defaultBinDir, type LocalControlPlane } from "./local-control-plane.ts";
import { describeFailures } from "./leftovers.ts";
import { markOwner, reclaimStale } from "./reclaim.ts";
import {
  hostLeftovers,
  hostRefusals,
  lockHost,
  nodeOwner,
  POD_NETWORK,
  setUpHost,
  tearDownHost,
  unlockHost,
  type HostState,
} from "./node-host.ts";
import {
  CNI_BIN_DIR,
  cniConfig,
  containerdConfig,
  kubeletConfig,
  kubeProxyConfig,
  type NodeTaint,
} from "./node-configs.ts";

export { PAUSE_IMAGE, type NodeTaint } from "./node-configs.ts";

const run = promisify(execFile);

/** Where make images puts the archives of the images a local node runs (hack/images/build.sh). */
export const LOCAL_IMAGE_DIR = join(import.meta.dirname, "../../../.cache/images");

/** The archives of make images: the pause image, svc's two images and the demo application. */
export function localImageArchives(): string[] {
  return ["pause", "svc", "sidecar", "demo"].map((image) => join(LOCAL_IMAGE_DIR, `${image}.tar`));
}

export interface LocalNodeOptions {
  /** Folder with kubelet, kube-scheduler and kube-proxy. Default: the control plane's. */
  binDir?: string;
  /** Where the node's folder is created. Default: the OS temp folder. */
  parentDir?: string;
  /** The Node's name. Default "svc-node". */
  name?: string;
  /** Image archives (oci or docker) imported into containerd before the kubelet starts. */
  imageArchives?: readonly string[];
  /** Registered with the Node, so that only pods tolerating them run here. */
  taints?: readonly NodeTaint[];
  /**
   * The kubelet's sync period, in seconds, which bounds how soon a changed ConfigMap reaches a
   * mounted volume. Default 60 (the kubelet's default).
   */
  syncFrequencySeconds?: number;
  readyTimeoutMs?: number;
}

/** The node's components a fault test may kill and start again. */
export type NodeComponent = "containerd" | "kubelet";

export interface LocalNode {
  readonly name: string;
  /** Folder with containerd's and the kubelet's state and every component's log. */
  readonly dir: string;
  /** Process ids of containerd, kubelet, kube-scheduler and kube-proxy. */
  readonly pids: readonly number[];
  /** Milliseconds from start to the Node being Ready, images imported. */
  readonly startupMs: number;
  /** Stops every component and removes the node's state from the machine. Safe to call twice. */
  stop(): Promise<void>;
  /** After stop(): what is still on the machine (expected: nothing), one line each. */
  leftovers(): string[];
  /** Kills a component with SIGKILL (a crash); the pods' containers keep running without it. */
  kill(component: NodeComponent): Promise<void>;
  /** Starts a killed component again, the same way, and waits until it answers. */
  start(component: NodeComponent): Promise<void>;
}

function hasCommand(name: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" }).status === 0;
}

/**
 * Why this machine cannot run a local node (one line per missing thing), or an empty list.
 * A node needs root on Linux, containerd and runc, the CNI plugins, iptables and iproute2
 * (Debian: make node-deps), the node's binaries (make controlplane) and the pause image (make images).
 * `uid`: whose view (default: this process's user).
 */
export function localNodeUnavailable(
  options: { binDir?: string; imageArchives?: readonly string[]; uid?: number } = {},
): string[] {
  const missing: string[] = [];
  if (process.platform !== "linux") return [`a node runs on Linux only (this is ${process.platform})`];
  if ((options.uid ?? process.getuid?.()) !== 0)
    missing.push("root: containerd and the kubelet manage mounts, cgroups and network namespaces");
  for (const command of ["containerd", "containerd-shim-runc-v2", "ctr", "runc", "iptables", "ip", "openssl"])
    if (!hasCommand(command)) missing.push(`the command ${command} (Debian: make node-deps)`);
  for (const plugin of ["bridge", "host-local", "loopback"])
    if (!existsSync(join(CNI_BIN_DIR, plugin)))
      missing.push(`the CNI plugin ${join(CNI_BIN_DIR, plugin)} (Debian: containernetworking-plugins)`);
  const binDir = options.binDir ?? defaultBinDir();
  for (const binary of ["kubelet", "kube-scheduler", "kube-proxy"])
    if (!existsSync(join(binDir, binary))) missing.push(`${join(binDir, binary)} (make controlplane)`);
  for (const archive of options.imageArchives ?? [])
    if (!existsSync(archive)) missing.push(`the image archive ${archive} (make images)`);
  if (!existsSync("/sys/fs/cgroup/memory") && !existsSync("/sys/fs/cgroup/cgroup.controllers"))
    missing.push("cgroups mounted at /sys/fs/cgroup");
  // The kernel's and the container's say, once every piece is there to ask them.
  if (missing.length === 0) missing.push(...hostRefusals());
  const owner = nodeOwner();
  if (owner !== undefined)
    missing.push(
      `the machine's node: process ${owner} runs one (one per machine: a bridge and iptables chains)`,
    );
  return missing;
}

async function nodeReady(core: CoreV1Api, name: string): Promise<boolean> {
  const node: V1Node | undefined = await core.readNode({ name }).catch(() => undefined);
  return node !== undefined && isReady(node);
}

/** Refuses to start on a machine that cannot run a node, or for a control plane its pods cannot reach. */
function refuseUnfitStart(controlPlane: LocalControlPlane, binDir: string, options: LocalNodeOptions): void {
  const missing = localNodeUnavailable({ binDir, imageArchives: options.imageArchives ?? [] });
  if (missing.length > 0)
    throw new Error(`this machine cannot run a local node; missing:\n- ${missing.join("\n- ")}`);
  if (controlPlane.podNetworkAddress !== POD_NETWORK.gateway)
    throw new Error(
      `start the control plane with podNetworkAddress ${POD_NETWORK.gateway}, so that pods reach its API`,
    );
}

/**
 * What the node changes on the machine: `setUp` makes the host's changes (bridge, iptables
 * chains), `cleanUp` undoes whichever were made, removes the node's folder and unlocks the machine.
 */
function nodeMachine(socket: string, dir: string): { setUp: () => void; cleanUp: () => void } {
  let host: HostState | undefined;
  return {
    setUp: () => {
      host = setUpHost();
    },
    cleanUp: () => {
      tearDownHost(host, socket, dir);
      spawnSync("rm", ["-rf", dir]);
      unlockHost();
    },
  };
}

type StartComponent = (binary: string, args: string[]) => SupervisedProcess;

/**
 * `start` runs a component in the node's folder, in place of its earlier process in
 * `components`; `commands` is how each component was started, to start it again the same way
 * (fault tests).
 */
function nodeComponentStarter(
  dir: string,
  components: SupervisedProcess[],
): { start: StartComponent; commands: ReadonlyMap<string, { binary: string; args: string[] }> } {
  const commands = new Map<string, { binary: string; args: string[] }>();
  const start = (binary: string, args: string[]) => {
    const componentName = binary.split("/").pop() ?? binary;
    commands.set(componentName, { binary, args });
    const component = superviseProcess({
      name: componentName,
      command: binary,
      args,
      cwd: dir,
      logPath: join(dir, `${componentName}.log`),
    });
    putInPlace(components, component);
    return component;
  };
  return { start, commands };
}

interface NodeStopParts {
  core: CoreV1Api;
  name: string;
  components: readonly SupervisedProcess[];
  cleanUpMachine: () => void;
  forgetExitCleanup: () => void;
  socket: string;
  dir: string;
}

/**
 * The node's stop, once however often it is called, and on Ctrl-C: drain, the components in
 * reverse order, the machine cleaned up, and what is left named on one line.
 */
function nodeStop({
  core,
  name,
  components,
  cleanUpMachine,
  forgetExitCleanup,
  socket,
  dir,
}: NodeStopParts): () => Promise<void> {
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      forgetShutdownStep();
      await drain(core, name, components).catch(() => undefined);
      for (const component of [...components].reverse()) await component.stop();
      cleanUpMachine();
      forgetExitCleanup();
      // Never throws: what is left is named on one line.
      const left = hostLeftovers(socket, dir);
      await rm(dir, { recursive: true, force: true }).catch((error: unknown) => {
        left.push((error as Error).message);
      });
      const line = describeFailures(left);
      if (line !== "") process.stderr.write(`${line}\n`);
    })());
  const forgetShutdownStep = onShutdownSignal(stop);
  return stop;
}

/** containerd's command line client, on the node's containerd and Kubernetes' namespace. */
type Ctr = (args: string[]) => Promise<unknown>;

/** Writes the CNI and containerd configuration, starts containerd and waits until it answers. */
async function startContainerd(
  dir: string,
  socket: string,
  start: StartComponent,
  timeout: number,
): Promise<{ ctr: Ctr; containerdReady: () => Promise<boolean> }> {
  await mkdir(join(dir, "cni"));
  await writeFile(join(dir, "cni/10-svc-pods.conflist"), cniConfig(dir));
  const containerdConfigPath = join(dir, "containerd.toml");
  await writeFile(containerdConfigPath, containerdConfig(dir, socket));
  const containerd = start("containerd", ["--config", containerdConfigPath, "--log-level", "warn"]);
  const ctr = (args: string[]) => run("ctr", ["--address", socket, "--namespace", "k8s.io", ...args]);
  const containerdReady = () =>
    ctr(["version"]).then(
      () => true,
      () => false,
    );
  await containerd.waitReady(containerdReady, timeout);
  return { ctr, containerdReady };
}

/** Imports the archives one after another; a failure surfaces where the promise is awaited. */
function importImages(ctr: Ctr, archives: readonly string[]): Promise<void> {
  const imported = (async () => {
    for (const archive of archives) await ctr(["images", "import", "--no-unpack", archive]);
  })();
  imported.catch(() => undefined);
  return imported;
}

interface KubeComponentsContext {
  controlPlane: LocalControlPlane;
  core: CoreV1Api;
  name: string;
  dir: string;
  socket: string;
  binDir: string;
  timeout: number;
  options: LocalNodeOptions;
  start: StartComponent;
}

/**
 * Starts the kubelet, kube-scheduler and kube-proxy, each with a kubeconfig of its own and free
 * ports, and waits until they and the images' import are done; resolves with the kubelet's
 * healthz port.
 */
async function startKubeComponents(ctx: KubeComponentsContext, imported: Promise<void>): Promise<number> {
  const { controlPlane, core, name, dir, socket, binDir, timeout, options, start } = ctx;
  const [kubeletKubeconfig, schedulerKubeconfig, proxyKubeconfig] = await Promise.all([
    controlPlane.kubeconfigFor(`kubelet-${name}`, `system:node:${name}`, ["system:nodes"]),
    controlPlane.kubeconfigFor("kube-scheduler", "system:kube-scheduler"),
    controlPlane.kubeconfigFor("kube-proxy", "system:kube-proxy"),
  ]);
  const [port, healthzPort, schedulerPort, proxyHealthzPort, proxyMetricsPort] = await Promise.all([
    freeLoopbackPort(),
    freeLoopbackPort(),
    freeLoopbackPort(),
    freeLoopbackPort(),
    freeLoopbackPort(),
  ]);
  const kubeletConfigPath = join(dir, "kubelet.json");
  await writeFile(
    kubeletConfigPath,
    kubeletConfig(dir, socket, controlPlane.caPath, { port, healthzPort }, options),
  );
  const kubelet = start(join(binDir, "kubelet"), [
    `--config=${kubeletConfigPath}`,
    `--kubeconfig=${kubeletKubeconfig}`,
    `--root-dir=${join(dir, "kubelet")}`,
    `--cert-dir=${join(dir, "kubelet-pki")}`,
    `--hostname-override=${name}`,
    `--node-ip=${POD_NETWORK.gateway}`,
    "--v=0",
  ]);
  const scheduler = start(join(binDir, "kube-scheduler"), [
    `--kubeconfig=${schedulerKubeconfig}`,
    `--secure-port=${schedulerPort}`,
    "--bind-address=127.0.0.1",
    "--leader-elect=false",
    "--v=0",
  ]);
  const proxyConfigPath = join(dir, "kube-proxy.json");
  await writeFile(
    proxyConfigPath,
    kubeProxyConfig(name, proxyKubeconfig, { healthzPort: proxyHealthzPort, metricsPort: proxyMetricsPort }),
  );
  const proxy = start(join(binDir, "kube-proxy"), [`--config=${proxyConfigPath}`, "--v=0"]);
  await Promise.all([
    imported,
    kubelet.waitReady(() => nodeReady(core, name), timeout),
    scheduler.waitReady(
      async () => (await probe(`https://127.0.0.1:${schedulerPort}/healthz`)) === 200,
      timeout,
    ),
    proxy.waitReady(
      async () =>
        await fetch(`http://127.0.0.1:${proxyHealthzPort}/healthz`).then(
          (r) => r.ok,
          () => false,
        ),
      timeout,
    ),
  ]);
  return healthzPort;
}

interface RunningNode {
  name: string;
  dir: string;
  socket: string;
  /** When startLocalNode began (Date.now()). */
  started: number;
  timeout: number;
  components: readonly SupervisedProcess[];
  starter: ReturnType<typeof nodeComponentStarter>;
  containerdReady: () => Promise<boolean>;
  kubeletHealthzPort: number;
  stop: () => Promise<void>;
}

/** The handle of a started node: its components killed and started again by name, as first started. */
function nodeHandle(node: RunningNode): LocalNode {
  const { name, dir, socket, timeout, components, starter, stop } = node;
  const { start, commands } = starter;
  const running = (component: NodeComponent) => components.find((c) => c.name === component && c.running());
  const ready: Record<NodeComponent, () => Promise<boolean>> = {
    containerd: node.containerdReady,
    kubelet: () =>
      fetch(`http://127.0.0.1:${node.kubeletHealthzPort}/healthz`).then(
        (r) => r.ok,
        () => false,
      ),
  };
  return {
    name,
    dir,
    startupMs: Date.now() - node.started,
    get pids() {
      return components.map((c) => c.pid ?? -1);
    },
    async kill(component) {
      await running(component)?.stop({ signal: "SIGKILL" });
    },
    async start(component) {
      const command = commands.get(component);
      if (running(component) !== undefined || command === undefined) return;
      await start(command.binary, command.args).waitReady(ready[component], timeout);
    },
    stop,
    leftovers: () => hostLeftovers(socket, dir),
  };
}

/** Starts containerd, imports the images, and starts the kubelet, kube-scheduler and kube-proxy. */
export async function startLocalNode(
  controlPlane: LocalControlPlane,
  options: LocalNodeOptions = {},
): Promise<LocalNode> {
  const started = Date.now();
  const binDir = options.binDir ?? defaultBinDir();
  refuseUnfitStart(controlPlane, binDir, options);
  const timeout = options.readyTimeoutMs ?? 120_000;
  const name = options.name ?? "svc-node";
  const parentDir = options.parentDir ?? tmpdir();
  if (nodeOwner() === undefined) reclaimStale(parentDir, "svc-node-");
  const dir = await mkdtemp(join(parentDir, "svc-node-"));
  markOwner(dir);
  const socket = join(dir, "containerd.sock");
  const core = controlPlane.kubeConfig().makeApiClient(CoreV1Api);
  const components: SupervisedProcess[] = [];
  const machine = nodeMachine(socket, dir);
  try {
    lockHost(socket);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const forgetExitCleanup = runOnExit(machine.cleanUp);
  const starter = nodeComponentStarter(dir, components);
  const stop = nodeStop({
    core,
    name,
    components,
    cleanUpMachine: machine.cleanUp,
    forgetExitCleanup,
    socket,
    dir,
  });

  try {
    machine.setUp();
    const { start } = starter;
    const { ctr, containerdReady } = await startContainerd(dir, socket, start, timeout);
    // Imported while the kubelet registers: the node is ready when both are done.
    const imported = importImages(ctr, options.imageArchives ?? []);
    const kubeContext = { controlPlane, core, name, dir, socket, binDir, timeout, options, start };
    const kubeletHealthzPort = await startKubeComponents(kubeContext, imported);
    return nodeHandle({
      name,
      dir,
      socket,
      started,
      timeout,
      components,
      starter,
      containerdReady,
      kubeletHealthzPort,
      stop,
    });
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Taints the node so that nothing comes back (a NoExecute taint of its own: DaemonSets tolerate
 * a cordon, not this) and deletes its pods through the API, then waits until the kubelet has torn
 * them down (a pod leaves the API once its containers and sandbox are gone), and deletes the Node.
 */
async function drain(core: CoreV1Api, name: string, components: readonly SupervisedProcess[]): Promise<void> {
  const kubeletRunning = components.some((c) => c.name === "kubelet" && c.running());
  const node = await core.readNode({ name });
  const taints = [...(node.spec?.taints ?? []), { key: "svc.io/node-stopping", effect: "NoExecute" }];
  await core.patchNode({ name, body: [{ op: "add", path: "/spec/taints", value: taints }] });
  const fieldSelector = `spec.nodeName=${name}`;
  const pods = await core.listPodForAllNamespaces({ fieldSelector });
  await Promise.all(
    pods.items.map((pod) =>
      core
        .deleteNamespacedPod({
          name: pod.metadata?.name ?? "",
          namespace: pod.metadata?.namespace ?? "",
          gracePeriodSeconds: 1,
        })
        .catch(() => undefined),
    ),
  );
  if (kubeletRunning)
    await waitFor(
      async () => (await core.listPodForAllNamespaces({ fieldSelector })).items.length,
      (count) => count === 0,
      { what: `the pods of node ${name} gone`, timeoutMs: 60_000, intervalMs: 250 },
    ).catch(() => undefined);
  await core.deleteNode({ name }).catch(() => undefined);
}
