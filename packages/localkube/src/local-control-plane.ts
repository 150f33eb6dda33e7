/**
 * A real Kubernetes control plane on this machine: etcd, kube-apiserver and
 * kube-controller-manager built by hack/controlplane/build.sh, on free loopback ports, in a
 * temporary folder. Used by the integration tests and by `svc dev`. Pods stay Pending unless a
 * node joins it (local-node.ts); everything above them (Deployments, ReplicaSets, RBAC, CRDs)
 * is the real thing.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { freeLoopbackPort } from "@svc/kube";
import {
  onShutdownSignal,
  putInPlace,
  removeOnExit,
  runOnExit,
  superviseProcess,
  type SupervisedProcess,
} from "./child-process.ts";
import { guardPort, unguardPort } from "./api-guard.ts";
import { kubeconfigYaml, probe } from "./control-plane-access.ts";
import { listensOn } from "./host-commands.ts";
import { portTaken } from "./port-ownership.ts";
import { describeFailures } from "./leftovers.ts";
import { markOwner, recordGuardedPort, reclaimStale } from "./reclaim.ts";
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate } from "./pki.ts";

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

/** Metadata of every write; reads are not recorded. */
const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    verbs: [create, update, patch, delete, deletecollection]
  - level: None
`;

/** Services' addresses; the first is the `kubernetes` Service's. */
const SERVICE_CIDR = "10.0.0.0/24";
const SERVICE_IP = "10.0.0.1";

const REPO_ROOT = resolve(import.meta.dirname, "../../..");

export function defaultBinDir(): string {
  return process.env["SVC_CONTROLPLANE_BIN"] ?? join(REPO_ROOT, ".cache/controlplane/bin");
}

/** How a component is started on its ports: its arguments, and when it answers. */
interface Launch {
  args: string[];
  ready: () => Promise<boolean>;
}

/** Starts on fresh ports after another process took one, at most this many times in all. */
const PORT_ATTEMPTS = 5;

function startComponent(binDir: string, dir: string, name: string, args: string[]): SupervisedProcess {
  return superviseProcess({
    name,
    command: join(binDir, name),
    args,
    cwd: dir,
    logPath: join(dir, `${name}.log`),
  });
}

/** Starts etcd, kube-apiserver and kube-controller-manager and waits until all three are ready. */
export async function startLocalControlPlane(options: StartOptions = {}): Promise<LocalControlPlane> {
  const binDir = options.binDir ?? defaultBinDir();
  const timeout = options.readyTimeoutMs ?? 120_000;
  const parentDir = options.parentDir ?? tmpdir();
  // What an earlier run killed with SIGKILL left (its components outlive it, in their own groups).
  reclaimStale(parentDir, "svc-controlplane-");
  const dir = await mkdtemp(join(parentDir, "svc-controlplane-"));
  markOwner(dir);
  const keepDir = removeOnExit(dir);
  const components: SupervisedProcess[] = [];
  let stopped: Promise<void> | undefined;
  let unguard = (): void => {
    // Nothing to undo unless the API server listens on every address.
  };
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
  // On Ctrl-C, stopped in order (after a node registered later, which needs it to drain).
  const forgetShutdownStep = onShutdownSignal(stop);

  try {
    const token = randomBytes(32).toString("hex");
    const certDir = join(dir, "pki");
    await mkdir(certDir);
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const saKey = join(certDir, "sa.key");
    const saPub = join(certDir, "sa.pub");
    await writeFile(saKey, privateKey.export({ type: "pkcs8", format: "pem" }));
    await writeFile(saPub, publicKey.export({ type: "spki", format: "pem" }));
    const tokenFile = join(certDir, "tokens.csv");
    await writeFile(tokenFile, `${token},admin,admin,system:masters\n`);
    const ca = await createCertificateAuthority(certDir);
    const addresses = [
      "127.0.0.1",
      SERVICE_IP,
      ...(options.podNetworkAddress === undefined ? [] : [options.podNetworkAddress]),
    ];
    const [serving, kubeletClient] = await Promise.all([
      issueServingCertificate(ca, certDir, "apiserver", addresses, [
        "kubernetes",
        "kubernetes.default",
        "kubernetes.default.svc",
        "kubernetes.default.svc.cluster.local",
        "localhost",
      ]),
      issueClientCertificate(ca, certDir, "apiserver-kubelet-client", "kube-apiserver-kubelet-client", [
        "system:masters",
      ]),
    ]);

    const choosePort = options.choosePort ?? freeLoopbackPort;
    /** How each component is started again (on the same ports), and when it is ready. */
    const launchers = new Map<ControlPlaneComponent, () => Promise<void>>();
    /**
     * Starts a component on `portCount` ports (the first one it serves its probe on), and waits
     * until it is ready and listens there itself; on fresh ports again when another process took
     * one first. Resolves with the ports it runs on.
     */
    const launch = async (
      name: ControlPlaneComponent,
      portCount: number,
      build: (ports: readonly number[]) => Launch | Promise<Launch>,
    ): Promise<readonly number[]> => {
      const startOn = async (ports: readonly number[]) => {
        const { args, ready } = await build(ports);
        const started = startComponent(binDir, dir, name, args);
        putInPlace(components, started);
        await started.waitReady(async () => listensOn(started.pid, ports[0] ?? 0) && ready(), timeout);
      };
      const choosePorts = async () => {
        const ports: number[] = [];
        for (let i = 0; i < portCount; i++) ports.push(await choosePort());
        return ports;
      };
      let ports = await choosePorts();
      for (let attempt = 1; ; attempt++) {
        try {
          await startOn(ports);
          break;
        } catch (error) {
          if (attempt >= PORT_ATTEMPTS || !portTaken((error as Error).message)) throw error;
          ports = await choosePorts();
        }
      }
      launchers.set(name, () => startOn(ports));
      return ports;
    };

    const [etcdPort] = await launch("etcd", 2, ([port, peerPort]) => {
      const etcdUrl = `http://127.0.0.1:${port ?? 0}`;
      const peerUrl = `http://127.0.0.1:${peerPort ?? 0}`;
      return {
        args: [
          `--data-dir=${join(dir, "etcd")}`,
          `--listen-client-urls=${etcdUrl}`,
          `--advertise-client-urls=${etcdUrl}`,
          `--listen-peer-urls=${peerUrl}`,
          `--initial-advertise-peer-urls=${peerUrl}`,
          `--initial-cluster=default=${peerUrl}`,
          "--unsafe-no-fsync",
          "--log-level=warn",
        ],
        ready: async () => (await fetch(`${etcdUrl}/health`).catch(() => undefined))?.ok === true,
      };
    });

    const auditLogPath = options.auditLog === true ? join(dir, "audit.log") : undefined;
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
    const [apiPort] = await launch("kube-apiserver", 1, async ([port = 0]) => {
      const server = `https://127.0.0.1:${port}`;
      if (options.podNetworkAddress !== undefined) guard(port);
      const args = [
        `--etcd-servers=http://127.0.0.1:${etcdPort ?? 0}`,
        `--secure-port=${port}`,
        `--bind-address=${options.podNetworkAddress === undefined ? "127.0.0.1" : "0.0.0.0"}`,
        `--advertise-address=${options.podNetworkAddress ?? "127.0.0.1"}`,
        `--tls-cert-file=${serving.certPath}`,
        `--tls-private-key-file=${serving.keyPath}`,
        `--token-auth-file=${tokenFile}`,
        `--client-ca-file=${ca.certPath}`,
        `--kubelet-client-certificate=${kubeletClient.certPath}`,
        `--kubelet-client-key=${kubeletClient.keyPath}`,
        // A node's name is not in any DNS here: reach kubelets at their address.
        "--kubelet-preferred-address-types=InternalIP",
        // Node: a kubelet reads only its own pods' Secrets and ConfigMaps (as in production).
        "--authorization-mode=Node,RBAC",
        `--service-account-key-file=${saPub}`,
        `--service-account-signing-key-file=${saKey}`,
        `--service-account-issuer=${server}`,
        `--service-cluster-ip-range=${SERVICE_CIDR}`,
        "--allow-privileged=true",
        "--v=0",
      ];
      if (auditLogPath !== undefined) {
        const policyPath = join(dir, "audit-policy.yaml");
        await writeFile(policyPath, AUDIT_POLICY);
        args.push(
          `--audit-policy-file=${policyPath}`,
          `--audit-log-path=${auditLogPath}`,
          "--audit-log-mode=blocking",
        );
      }
      return { args, ready: async () => (await probe(`${server}/readyz`, token)) === 200 };
    });

    const server = `https://127.0.0.1:${apiPort ?? 0}`;
    const caPem = await readFile(ca.certPath, "utf8");
    const kubeconfigPath = join(dir, "kubeconfig");
    await writeFile(kubeconfigPath, kubeconfigYaml(server, caPem, { token }), { mode: 0o600 });

    await launch("kube-controller-manager", 1, ([port = 0]) => ({
      args: [
        `--kubeconfig=${kubeconfigPath}`,
        `--secure-port=${port}`,
        "--bind-address=127.0.0.1",
        `--service-account-private-key-file=${saKey}`,
        `--root-ca-file=${ca.certPath}`,
        "--leader-elect=false",
        "--controllers=*",
        "--v=0",
      ],
      ready: async () => (await probe(`https://127.0.0.1:${port}/healthz`)) === 200,
    }));
    const running = (name: ControlPlaneComponent) => components.find((c) => c.name === name && c.running());
    const startAgain = async (name: ControlPlaneComponent) => {
      if (running(name) === undefined) await launchers.get(name)?.();
    };

    return {
      dir,
      server,
      kubeconfigPath,
      auditLogPath,
      podNetworkAddress: options.podNetworkAddress,
      caPath: ca.certPath,
      get pids() {
        return components.map((c) => c.pid ?? -1);
      },
      async stopApiServer() {
        await running("kube-apiserver")?.stop();
      },
      startApiServer: () => startAgain("kube-apiserver"),
      async kill(name) {
        await running(name)?.stop({ signal: "SIGKILL" });
      },
      start: startAgain,
      kubeConfig() {
        const kc = new KubeConfig();
        kc.loadFromFile(kubeconfigPath);
        return kc;
      },
      async kubeconfigFor(fileName, user, groups = []) {
        const path = join(dir, `${fileName}.kubeconfig`);
        const certificate = await issueClientCertificate(ca, certDir, fileName, user, groups);
        await writeFile(path, kubeconfigYaml(server, caPem, certificate), { mode: 0o600 });
        return path;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
