/**
 * A real Kubernetes control plane on this machine: etcd, kube-apiserver and
 * kube-controller-manager built by hack/controlplane/build.sh, on free loopback ports, in a
 * temporary folder. Used by the integration tests and by `svc dev`. Pods stay Pending unless a
 * node joins it (local-node.ts); everything above them (Deployments, ReplicaSets, RBAC, CRDs)
 * is the real thing.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { freeLoopbackPort } from "@svc/kube";
import { onShutdownSignal, removeOnExit, runOnExit, type SupervisedProcess } from "./child-process.ts";
import { guardPort, unguardPort } from "./api-guard.ts";
import {
  apiServerLaunch,
  componentLauncher,
  controllerManagerLaunch,
  etcdLaunch,
  writeCredentials,
  type ControlPlaneCredentials,
} from "./control-plane-components.ts";
import { kubeconfigYaml } from "./control-plane-access.ts";
import { describeFailures } from "./leftovers.ts";
import { markOwner, recordGuardedPort, reclaimStale } from "./reclaim.ts";
import { issueClientCertificate } from "./pki.ts";

export interface LocalControlPlane {
  /** Folder holding data, certificates, logs and the kubeconfig; removed by stop(). */
  readonly dir: string;
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** Path of a kubeconfig for a cluster-admin user. */
  readonly kubeconfigPath: string;
  /** The kube-apiserver's audit log (JSON lines, one per write), when started with `auditLog`. */
  readonly auditLogPath: string | undefined;
  /**
   * The address pods reach the kube-apiserver at (the `kubernetes` Service's endpoint), when
   * started with `podNetworkAddress`.
   */
  readonly podNetworkAddress: string | undefined;
  /** Process ids of etcd, kube-apiserver and kube-controller-manager. */
  readonly pids: readonly number[];
  /** Stops only kube-apiserver (etcd keeps the data): clients see the API become unreachable. */
  stopApiServer(): Promise<void>;
  /** Starts kube-apiserver again on the same address, with the same data and credentials. */
  startApiServer(): Promise<void>;
  /**
   * Stops one component (SIGKILL: a crash, no shutdown) and leaves it stopped; start() brings it
   * back on the same address with the same data. For fault tests.
   */
  kill(component: ControlPlaneComponent): Promise<void>;
  /** Starts a stopped component again and waits until it is ready. */
  start(component: ControlPlaneComponent): Promise<void>;
  kubeConfig(): KubeConfig;
  /**
   * Writes a kubeconfig that logs in as `user` in `groups` with a client certificate (the
   * node's components: `system:node:<name>`, `system:kube-scheduler`...); returns its path.
   */
  kubeconfigFor(fileName: string, user: string, groups?: readonly string[]): Promise<string>;
  /** The cluster's CA: it signed the kube-apiserver's certificates (a kubelet trusts its client certificate). */
  readonly caPath: string;
  /** Stops every process and removes the folder. Safe to call twice. */
  stop(): Promise<void>;
}

export type ControlPlaneComponent = "etcd" | "kube-apiserver" | "kube-controller-manager";

export interface StartOptions {
  /** Folder with etcd, kube-apiserver and kube-controller-manager. Default: $SVC_CONTROLPLANE_BIN or .cache/controlplane/bin. */
  binDir?: string;
  /** Where the control plane's folder is created. Default: the OS temp folder. */
  parentDir?: string;
  /** Upper bound for each component to become ready. */
  readyTimeoutMs?: number;
  /**
   * Listen on every address and advertise this one (the pod network's gateway on this machine)
   * as the `kubernetes` Service's endpoint, so that pods reach the API; an iptables rule keeps
   * other machines out (guardPort). Default: loopback only.
   */
  podNetworkAddress?: string;
  /** Record every write (create, update, patch, delete) in an audit log, to count a client's writes. */
  auditLog?: boolean;
  /**
   * Picks each component's ports (default: a loopback port free a moment ago). A port taken by
   * another process before the component binds it is replaced; a test makes that race happen.
   */
  choosePort?: () => Promise<number>;
}

const REPO_ROOT = resolve(import.meta.dirname, "../../..");

export function defaultBinDir(): string {
  return process.env["SVC_CONTROLPLANE_BIN"] ?? join(REPO_ROOT, ".cache/controlplane/bin");
}

/**
 * The iptables rule that keeps other machines out of the kube-apiserver's port while it listens
 * on every address (so that pods reach it): `guard` moves it to a port, `unguard` removes it.
 */
function apiServerGuard(dir: string): { guard: (port: number) => void; unguard: () => void } {
  let unguard = (): void => {
    // Nothing to undo unless the API server listens on every address.
  };
  const guard = (port: number) => {
    unguard();
    // It listens on every address so that pods reach it: only this machine and its pods may.
    recordGuardedPort(dir, port);
    guardPort(port);
    const forget = runOnExit(() => {
      unguardPort(port);
    });
    unguard = () => {
      unguardPort(port);
      forget();
    };
  };
  // Read when called: the guard in place then, not the one at return.
  return {
    guard,
    unguard: () => {
      unguard();
    },
  };
}

/**
 * The control plane's stop, once however often it is called: its components in reverse order,
 * the guard, then the folder. Also run on Ctrl-C, in order (after a node registered later, which
 * needs it to drain).
 */
function controlPlaneStop(
  dir: string,
  components: readonly SupervisedProcess[],
  unguard: () => void,
): () => Promise<void> {
  const keepDir = removeOnExit(dir);
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      forgetShutdownStep();
      for (const component of [...components].reverse()) await component.stop();
      unguard();
      // Never throws: what is left is named on one line.
      await rm(dir, { recursive: true, force: true }).then(keepDir, (error: unknown) => {
        process.stderr.write(`${describeFailures([(error as Error).message])}\n`);
      });
    })());
  const forgetShutdownStep = onShutdownSignal(stop);
  return stop;
}

/** What controlPlaneHandle hands out: the running control plane's folder, address and access. */
interface RunningControlPlane {
  dir: string;
  server: string;
  kubeconfigPath: string;
  auditLogPath: string | undefined;
  podNetworkAddress: string | undefined;
  credentials: ControlPlaneCredentials;
  caPem: string;
  components: readonly SupervisedProcess[];
  relaunch: (name: ControlPlaneComponent) => Promise<void> | undefined;
  stop: () => Promise<void>;
}

/** The handle of a started control plane: its components stopped, killed and started again by name. */
function controlPlaneHandle(running: RunningControlPlane): LocalControlPlane {
  const { dir, server, kubeconfigPath, credentials, caPem, components, relaunch } = running;
  const runningComponent = (name: ControlPlaneComponent) =>
    components.find((c) => c.name === name && c.running());
  const startAgain = async (name: ControlPlaneComponent) => {
    if (runningComponent(name) === undefined) await relaunch(name);
  };
  return {
    dir,
    server,
    kubeconfigPath,
    auditLogPath: running.auditLogPath,
    podNetworkAddress: running.podNetworkAddress,
    caPath: credentials.ca.certPath,
    get pids() {
      return components.map((c) => c.pid ?? -1);
    },
    async stopApiServer() {
      await runningComponent("kube-apiserver")?.stop();
    },
    startApiServer: () => startAgain("kube-apiserver"),
    async kill(name) {
      await runningComponent(name)?.stop({ signal: "SIGKILL" });
    },
    start: startAgain,
    kubeConfig() {
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfigPath);
      return kc;
    },
    async kubeconfigFor(fileName, user, groups = []) {
      const path = join(dir, `${fileName}.kubeconfig`);
      const certificate = await issueClientCertificate(
        credentials.ca,
        credentials.certDir,
        fileName,
        user,
        groups,
      );
      await writeFile(path, kubeconfigYaml(server, caPem, certificate), { mode: 0o600 });
      return path;
    },
    stop: running.stop,
  };
}

/** Starts etcd, kube-apiserver and kube-controller-manager and waits until all three are ready. */
export async function startLocalControlPlane(options: StartOptions = {}): Promise<LocalControlPlane> {
  const binDir = options.binDir ?? defaultBinDir();
  const timeout = options.readyTimeoutMs ?? 120_000;
  const parentDir = options.parentDir ?? tmpdir();
  const { podNetworkAddress } = options;
  // What an earlier run killed with SIGKILL left (its components outlive it, in their own groups).
  reclaimStale(parentDir, "svc-controlplane-");
  const dir = await mkdtemp(join(parentDir, "svc-controlplane-"));
  markOwner(dir);
  const components: SupervisedProcess[] = [];
  const { guard, unguard } = apiServerGuard(dir);
  const stop = controlPlaneStop(dir, components, unguard);

  try {
    const credentials = await writeCredentials(dir, podNetworkAddress);
    const choosePort = options.choosePort ?? freeLoopbackPort;
    const { launch, relaunch } = componentLauncher({ binDir, dir, timeout, choosePort, components });
    const [etcdPort] = await launch("etcd", 2, (ports) => etcdLaunch(dir, ports));
    const auditLogPath = options.auditLog === true ? join(dir, "audit.log") : undefined;
    const apiServer = { dir, etcdPort, credentials, podNetworkAddress, auditLogPath, guard };
    const [apiPort] = await launch("kube-apiserver", 1, ([port = 0]) => apiServerLaunch(apiServer, port));

    const server = `https://127.0.0.1:${apiPort ?? 0}`;
    const caPem = await readFile(credentials.ca.certPath, "utf8");
    const kubeconfigPath = join(dir, "kubeconfig");
    await writeFile(kubeconfigPath, kubeconfigYaml(server, caPem, { token: credentials.token }), {
      mode: 0o600,
    });

    await launch("kube-controller-manager", 1, ([port = 0]) =>
      controllerManagerLaunch(kubeconfigPath, credentials, port),
    );
    return controlPlaneHandle({
      dir,
      server,
      kubeconfigPath,
      auditLogPath,
      podNetworkAddress,
      credentials,
      caPem,
      components,
      relaunch,
      stop,
    });
  } catch (error) {
    await stop();
    throw error;
  }
}
