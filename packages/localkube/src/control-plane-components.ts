/**
 * How the local control plane's components are started: the credentials they share, each one's
 * flags and readiness probe, and the start on free ports that tries fresh ones when another
 * process took one first. local-control-plane.ts starts them in order and hands them out.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { putInPlace, superviseProcess, type SupervisedProcess } from "./child-process.ts";
import { probe } from "./control-plane-access.ts";
import { listensOn } from "./host-commands.ts";
import { portTaken } from "./port-ownership.ts";
import {
  createCertificateAuthority,
  issueClientCertificate,
  issueServingCertificate,
  type Certificate,
  type CertificateAuthority,
} from "./pki.ts";

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

/** The credentials the components share, in the control plane's `pki` folder. */
export interface ControlPlaneCredentials {
  /** The cluster-admin's bearer token. */
  token: string;
  certDir: string;
  /** The service accounts' signing key and its public half. */
  saKey: string;
  saPub: string;
  tokenFile: string;
  ca: CertificateAuthority;
  /** The kube-apiserver's serving certificate and its client certificate for kubelets. */
  serving: Certificate;
  kubeletClient: Certificate;
}

/**
 * Writes the admin token, the service account key pair, the CA and the kube-apiserver's
 * certificates (valid for loopback, the `kubernetes` Service and `podNetworkAddress`).
 */
export async function writeCredentials(
  dir: string,
  podNetworkAddress: string | undefined,
): Promise<ControlPlaneCredentials> {
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
    ...(podNetworkAddress === undefined ? [] : [podNetworkAddress]),
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
  return { token, certDir, saKey, saPub, tokenFile, ca, serving, kubeletClient };
}

/** How a component is started on its ports: its arguments, and when it answers. */
export interface Launch {
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

export interface LauncherOptions {
  binDir: string;
  dir: string;
  timeout: number;
  choosePort: () => Promise<number>;
  /** Where each started component is put (in place of its earlier process, if any). */
  components: SupervisedProcess[];
}

/**
 * `launch` starts a component on `portCount` ports (the first one it serves its probe on), and
 * waits until it is ready and listens there itself; on fresh ports again when another process
 * took one first. Resolves with the ports it runs on. `relaunch` starts a launched component
 * again the same way, on the same ports.
 */
export function componentLauncher({ binDir, dir, timeout, choosePort, components }: LauncherOptions): {
  launch: (
    name: string,
    portCount: number,
    build: (ports: readonly number[]) => Launch | Promise<Launch>,
  ) => Promise<readonly number[]>;
  relaunch: (name: string) => Promise<void> | undefined;
} {
  /** How each component is started again (on the same ports), and when it is ready. */
  const launchers = new Map<string, () => Promise<void>>();
  const launch = async (
    name: string,
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
  return { launch, relaunch: (name) => launchers.get(name)?.() };
}

/** etcd on its client and peer ports, its data in the control plane's folder. */
export function etcdLaunch(dir: string, [port, peerPort]: readonly number[]): Launch {
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
}

export interface ApiServerSettings {
  dir: string;
  etcdPort: number | undefined;
  credentials: ControlPlaneCredentials;
  /** Listen on every address and advertise this one; undefined: loopback only. */
  podNetworkAddress: string | undefined;
  auditLogPath: string | undefined;
  /** Keeps other machines out of `port` (called when it listens on every address). */
  guard: (port: number) => void;
}

/** kube-apiserver on `port`, on the given etcd, writing the audit policy first when it keeps an audit log. */
export async function apiServerLaunch(settings: ApiServerSettings, port: number): Promise<Launch> {
  const { dir, etcdPort, podNetworkAddress, auditLogPath, guard } = settings;
  const { token, saKey, saPub, tokenFile, ca, serving, kubeletClient } = settings.credentials;
  const server = `https://127.0.0.1:${port}`;
  if (podNetworkAddress !== undefined) guard(port);
  const args = [
    `--etcd-servers=http://127.0.0.1:${etcdPort ?? 0}`,
    `--secure-port=${port}`,
    `--bind-address=${podNetworkAddress === undefined ? "127.0.0.1" : "0.0.0.0"}`,
    `--advertise-address=${podNetworkAddress ?? "127.0.0.1"}`,
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
}

/** kube-controller-manager on `port`, every controller, reaching the API through `kubeconfigPath`. */
export function controllerManagerLaunch(
  kubeconfigPath: string,
  credentials: ControlPlaneCredentials,
  port: number,
): Launch {
  return {
    args: [
      `--kubeconfig=${kubeconfigPath}`,
      `--secure-port=${port}`,
      "--bind-address=127.0.0.1",
      `--service-account-private-key-file=${credentials.saKey}`,
      `--root-ca-file=${credentials.ca.certPath}`,
      "--leader-elect=false",
      "--controllers=*",
      "--v=0",
    ],
    ready: async () => (await probe(`https://127.0.0.1:${port}/healthz`)) === 200,
  };
}
