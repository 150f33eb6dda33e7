// The real `svc sidecar` command as a process of its own (as in a pod), for the tests that need
// its own memory figures or must not share the test's event loop: started on loopback against a
// kubeconfig, ready once /healthz answers 200 (its first list of FeatureFlags is done).
import { join, resolve } from "node:path";
import { freeLoopbackPort } from "@svc/kube";
import { superviseProcess, type SupervisedProcess } from "@svc/localkube";

const ROOT = resolve(import.meta.dirname, "../../../..");
const MAIN = join(ROOT, "packages/cli/src/main.ts");
/** Bun, the runtime of the sidecar image (deploy/Dockerfile), from its npm package. */
const BUN = join(ROOT, "node_modules/@oven/bun-linux-x64/bin/bun");

export interface SidecarProcess {
  url: string;
  port: number;
  pid: number;
  process: SupervisedProcess;
  /** SIGTERM (the sidecar drains), SIGKILL after the grace period. */
  stop: () => Promise<void>;
}

export async function startSidecarProcess(options: {
  namespace: string;
  kubeconfigPath: string;
  /** Pins the process to these CPUs (taskset), e.g. "0", so that a floor can be measured alike. */
  cpus?: string;
  /** Runs it on Bun, as the sidecar image does, instead of this Node. */
  bun?: boolean;
  env?: Record<string, string>;
}): Promise<SidecarProcess> {
  const port = await freeLoopbackPort();
  const command = [options.bun === true ? BUN : process.execPath, MAIN, "sidecar"];
  const pinned = options.cpus === undefined ? command : ["taskset", "-c", options.cpus, ...command];
  const child = superviseProcess({
    name: "svc sidecar",
    command: pinned[0] ?? "",
    args: pinned.slice(1),
    env: {
      PATH: process.env["PATH"] ?? "",
      POD_NAMESPACE: options.namespace,
      KUBECONFIG: options.kubeconfigPath,
      SVC_SIDECAR_HOST: "127.0.0.1",
      SVC_SIDECAR_PORT: String(port),
      SVC_LOG_LEVEL: "warn",
      // TypeScript stripped once for every start, as the image ships it.
      NODE_COMPILE_CACHE: join(ROOT, ".cache/node-compile-cache"),
      ...options.env,
    },
  });
  const url = `http://127.0.0.1:${port}`;
  await child.waitReady(
    () =>
      fetch(`${url}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      ),
    60_000,
    50,
  );
  // taskset execs the sidecar in its own process, so the pid is the sidecar's.
  return { url, port, pid: child.pid ?? -1, process: child, stop: () => child.stop({ graceMs: 5_000 }) };
}
