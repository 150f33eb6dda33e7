/**
 * A real Kubernetes control plane on this machine: etcd, kube-apiserver and
 * kube-controller-manager built by hack/controlplane/build.sh, on free loopback ports, in a
 * temporary folder. Used by the integration tests and by `svc dev`. No kubelet runs, so pods
 * stay Pending; everything above them (Deployments, ReplicaSets, RBAC, CRDs) is the real thing.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createWriteStream, rmSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { constants, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { freeLoopbackPort } from "./ports.ts";

export interface LocalControlPlane {
  /** Folder holding data, certificates, logs and the kubeconfig; removed by stop(). */
  readonly dir: string;
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** Path of a kubeconfig for a cluster-admin user. */
  readonly kubeconfigPath: string;
  /** Process ids of etcd, kube-apiserver and kube-controller-manager. */
  readonly pids: readonly number[];
  /** Stops only kube-apiserver (etcd keeps the data): clients see the API become unreachable. */
  stopApiServer(): Promise<void>;
  /** Starts kube-apiserver again on the same address, with the same data and credentials. */
  startApiServer(): Promise<void>;
  kubeConfig(): KubeConfig;
  /** Stops every process and removes the folder. Safe to call twice. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Folder with etcd, kube-apiserver and kube-controller-manager. Default: $SVC_CONTROLPLANE_BIN or .cache/controlplane/bin. */
  binDir?: string;
  /** Where the control plane's folder is created. Default: the OS temp folder. */
  parentDir?: string;
  /** Upper bound for each component to become ready. */
  readyTimeoutMs?: number;
}

const REPO_ROOT = resolve(import.meta.dirname, "../../..");

export function defaultBinDir(): string {
  return process.env["SVC_CONTROLPLANE_BIN"] ?? join(REPO_ROOT, ".cache/controlplane/bin");
}

/** Children of this process still running, killed on exit whatever the cause, and their folders. */
const live = new Set<ChildProcess>();
const liveDirs = new Set<string>();
let exitHooksInstalled = false;

/**
 * Whatever ends this process (normal exit, uncaught error, SIGINT/SIGTERM/SIGHUP), its control
 * planes die with it: a crashed test run must not leave etcd and kube-apiserver behind.
 */
function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  // 'exit' handlers must be synchronous: SIGKILL is, and leaves no orphan behind.
  process.on("exit", () => {
    for (const child of live) child.kill("SIGKILL");
    for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    // Exiting (rather than re-raising the signal) runs the 'exit' hook above.
    process.once(signal, () => process.exit(128 + constants.signals[signal]));
  }
}

interface Component {
  name: string;
  child: ChildProcess;
  logPath: string;
  exited: Promise<void>;
}

function startComponent(binDir: string, dir: string, name: string, args: string[]): Component {
  const logPath = join(dir, `${name}.log`);
  const log = createWriteStream(logPath, { flags: "a" });
  const child = spawn(join(binDir, name), args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  live.add(child);
  const exited = new Promise<void>((done) => {
    child.once("exit", () => {
      live.delete(child);
      done();
    });
  });
  child.once("error", (error) => {
    log.write(`failed to start: ${error.message}\n`);
  });
  return { name, child, logPath, exited };
}

async function logTail(component: Component): Promise<string> {
  const text = await readFile(component.logPath, "utf8").catch(() => "");
  return text.split("\n").slice(-25).join("\n");
}

/** GET an https URL on loopback, trusting any certificate (used only before the CA is known). */
function probe(url: string, token?: string): Promise<number> {
  return new Promise((done) => {
    const req = request(
      url,
      {
        rejectUnauthorized: false,
        timeout: 2000,
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      },
      (res) => {
        res.resume();
        done(res.statusCode ?? 0);
      },
    );
    req.on("error", () => {
      done(0);
    });
    req.on("timeout", () => req.destroy());
    req.end();
  });
}

async function waitReady(
  component: Component,
  check: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (component.child.exitCode !== null || component.child.signalCode !== null) {
      throw new Error(`${component.name} exited while starting:\n${await logTail(component)}`);
    }
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${component.name} not ready after ${timeoutMs} ms:\n${await logTail(component)}`);
}

async function stopComponent(component: Component): Promise<void> {
  if (component.child.exitCode !== null || component.child.signalCode !== null) return;
  component.child.kill("SIGTERM");
  const killed = setTimeout(() => component.child.kill("SIGKILL"), 10_000);
  await component.exited;
  clearTimeout(killed);
}

function kubeconfigYaml(server: string, caPem: string, token: string): string {
  const ca = Buffer.from(caPem).toString("base64");
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: local`,
    `  cluster: {server: "${server}", certificate-authority-data: "${ca}"}`,
    "users:",
    `- name: admin`,
    `  user: {token: "${token}"}`,
    "contexts:",
    `- name: local`,
    `  context: {cluster: local, user: admin}`,
    "current-context: local",
    "",
  ].join("\n");
}

/** Starts etcd, kube-apiserver and kube-controller-manager and waits until all three are ready. */
export async function startLocalControlPlane(options: StartOptions = {}): Promise<LocalControlPlane> {
  installExitHooks();
  const binDir = options.binDir ?? defaultBinDir();
  const timeout = options.readyTimeoutMs ?? 120_000;
  const dir = await mkdtemp(join(options.parentDir ?? tmpdir(), "svc-controlplane-"));
  liveDirs.add(dir);
  const components: Component[] = [];
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      for (const component of [...components].reverse()) await stopComponent(component);
      await rm(dir, { recursive: true, force: true });
      liveDirs.delete(dir);
    })());

  try {
    const [etcdPort, etcdPeerPort, apiPort, kcmPort] = await Promise.all([
      freeLoopbackPort(),
      freeLoopbackPort(),
      freeLoopbackPort(),
      freeLoopbackPort(),
    ]);
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

    const etcdUrl = `http://127.0.0.1:${etcdPort}`;
    const peerUrl = `http://127.0.0.1:${etcdPeerPort}`;
    const etcd = startComponent(binDir, dir, "etcd", [
      `--data-dir=${join(dir, "etcd")}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=default=${peerUrl}`,
      "--unsafe-no-fsync",
      "--log-level=warn",
    ]);
    components.push(etcd);
    await waitReady(
      etcd,
      async () => {
        const res = await fetch(`${etcdUrl}/health`).catch(() => undefined);
        return res?.ok === true;
      },
      timeout,
    );

    const server = `https://127.0.0.1:${apiPort}`;
    const apiserverArgs = [
      `--etcd-servers=${etcdUrl}`,
      `--secure-port=${apiPort}`,
      "--bind-address=127.0.0.1",
      "--advertise-address=127.0.0.1",
      `--cert-dir=${certDir}`,
      `--token-auth-file=${tokenFile}`,
      "--authorization-mode=RBAC",
      `--service-account-key-file=${saPub}`,
      `--service-account-signing-key-file=${saKey}`,
      `--service-account-issuer=${server}`,
      "--service-cluster-ip-range=10.0.0.0/24",
      "--allow-privileged=true",
      "--v=0",
    ];
    const startApiServer = async (): Promise<Component> => {
      const apiserver = startComponent(binDir, dir, "kube-apiserver", apiserverArgs);
      await waitReady(apiserver, async () => (await probe(`${server}/readyz`, token)) === 200, timeout);
      return apiserver;
    };
    components.push(await startApiServer());

    const caPem = await readFile(join(certDir, "apiserver.crt"), "utf8");
    const kubeconfigPath = join(dir, "kubeconfig");
    await writeFile(kubeconfigPath, kubeconfigYaml(server, caPem, token), { mode: 0o600 });

    const kcm = startComponent(binDir, dir, "kube-controller-manager", [
      `--kubeconfig=${kubeconfigPath}`,
      `--secure-port=${kcmPort}`,
      "--bind-address=127.0.0.1",
      `--service-account-private-key-file=${saKey}`,
      `--root-ca-file=${join(certDir, "apiserver.crt")}`,
      "--leader-elect=false",
      "--controllers=*",
      "--v=0",
    ]);
    components.push(kcm);
    await waitReady(kcm, async () => (await probe(`https://127.0.0.1:${kcmPort}/healthz`)) === 200, timeout);

    return {
      dir,
      server,
      kubeconfigPath,
      get pids() {
        return components.map((c) => c.child.pid ?? -1);
      },
      async stopApiServer() {
        const apiserver = components.find((c) => c.name === "kube-apiserver");
        if (apiserver) await stopComponent(apiserver);
      },
      async startApiServer() {
        const index = components.findIndex((c) => c.name === "kube-apiserver");
        const current = components[index];
        if (current && current.child.exitCode === null && current.child.signalCode === null) return;
        components[index] = await startApiServer();
      },
      kubeConfig() {
        const kc = new KubeConfig();
        kc.loadFromFile(kubeconfigPath);
        return kc;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
