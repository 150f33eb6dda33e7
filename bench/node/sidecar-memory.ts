// The sidecar's real memory in its pod, on the local node: the operator injects `svc sidecar`
// (the image of deploy/Dockerfile, on Bun) into a Deployment, and the kernel's own account of
// its container (cgroup v1 memory controller) is read as the flags it serves grow (the demo app
// beside it counts them). The floor, in the same run and on the same node: a bare Bun HTTP
// server in a container of the same image.
//
//   node bench/node/sidecar-memory.ts [--flags 10,1000,5000] [--settle 10]
//
// Needs what a local node needs (root, make node-deps, make images). Working set is what the
// kubelet reports and evicts by: usage minus inactive page cache; rss is anonymous memory.
// Prints a Markdown table (paste into bench/RESULTS.md) and the raw numbers as JSON.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type V1Container,
  type V1Pod,
} from "@kubernetes/client-node";
import {
  API_GROUP,
  API_GROUP_VERSION,
  API_VERSION,
  FEATURE_FLAG,
  SIDECAR_CONTAINER_NAME,
  SYSTEM_NAMESPACE,
} from "@svc/core";
import { ensureNamespace, installCrds, isReady, waitFor } from "@svc/kube";
import {
  localImageArchives,
  localNodeUnavailable,
  POD_NETWORK,
  startLocalControlPlane,
  startLocalNode,
} from "@svc/kube/testing";
import { DEFAULT_SIDECAR_IMAGE, parseOperatorConfig, runOperator } from "@svc/operator";
import { DEMO_APP_PORT, DEMO_IMAGE } from "../../packages/cli/src/dev/demo.ts";
import { pool } from "../support/pool.ts";

const { values: args } = parseArgs({
  options: {
    flags: { type: "string", default: "10,1000,5000" },
    settle: { type: "string", default: "10" },
  },
});
const flagCounts = args.flags.split(",").map(Number);
const settleMs = Number(args.settle) * 1000;
const NAMESPACE = "bench";
const SIDECAR_PORT = 8514;
const MB = 1024 * 1024;

const missing = localNodeUnavailable({ imageArchives: localImageArchives() });
if (missing.length > 0) {
  process.stderr.write(`this machine cannot run a local node; missing:\n- ${missing.join("\n- ")}\n`);
  process.exit(1);
}

interface CgroupMemory {
  usageMb: number;
  workingSetMb: number;
  rssMb: number;
}

/** The memory cgroup (v1) of a container: the folder named by its id under kubepods. */
function findCgroup(dir: string, containerId: string, depth = 0): string | undefined {
  if (depth > 4) return undefined;
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (!statSync(path).isDirectory()) continue;
    if (entry === containerId) return path;
    const found = findCgroup(path, containerId, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function cgroupMemory(pod: V1Pod, container: string): CgroupMemory {
  const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
  const id = statuses.find((s) => s.name === container)?.containerID?.replace(/^containerd:\/\//, "") ?? "";
  const dir = findCgroup("/sys/fs/cgroup/memory/kubepods", id);
  if (dir === undefined) throw new Error(`no memory cgroup for container ${container} (${id})`);
  const usage = Number(readFileSync(join(dir, "memory.usage_in_bytes"), "utf8"));
  const stat = Object.fromEntries(
    readFileSync(join(dir, "memory.stat"), "utf8")
      .trim()
      .split("\n")
      .map((line) => line.split(" ") as [string, string]),
  );
  const inactiveFile = Number(stat["total_inactive_file"] ?? 0);
  return {
    usageMb: usage / MB,
    workingSetMb: (usage - inactiveFile) / MB,
    rssMb: Number(stat["total_rss"] ?? 0) / MB,
  };
}

const template = (app: string, containers: V1Container[]) => ({
  metadata: { name: app },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app } },
    template: { metadata: { labels: { app } }, spec: { terminationGracePeriodSeconds: 1, containers } },
  },
});

async function readyPod(
  kc: KubeConfig,
  app: string,
  check: (pod: V1Pod) => boolean = () => true,
): Promise<V1Pod> {
  const core = kc.makeApiClient(CoreV1Api);
  const pods = await waitFor(
    async () => (await core.listNamespacedPod({ namespace: NAMESPACE, labelSelector: `app=${app}` })).items,
    (items) => items.length === 1 && items.every((p) => isReady(p) && check(p)),
    { what: `pod of ${app} ready`, timeoutMs: 180_000, intervalMs: 500 },
  );
  return pods[0] as V1Pod;
}

async function createFlags(kc: KubeConfig, from: number, to: number): Promise<void> {
  const api = kc.makeApiClient(CustomObjectsApi);
  const indexes = Array.from({ length: to - from }, (_, i) => from + i);
  await pool(indexes, 16, async (i) => {
    await api.createNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace: NAMESPACE,
      plural: FEATURE_FLAG.plural,
      body: {
        apiVersion: API_GROUP_VERSION,
        kind: FEATURE_FLAG.kind,
        metadata: { name: `flag-${String(i).padStart(5, "0")}` },
        spec: {
          type: "string",
          defaultValue: `value ${i} of a flag served by the sidecar`,
          delivery: { sidecar: { port: SIDECAR_PORT, selector: { matchLabels: { app: "app" } } } },
        },
      },
    });
  });
}

/** How many flags the sidecar serves, as the app beside it reads them (the sidecar answers its pod only). */
async function servedCount(kc: KubeConfig, pod: string): Promise<number> {
  const core = kc.makeApiClient(CoreV1Api);
  const view = (await core
    .connectGetNamespacedPodProxyWithPath({
      name: `${pod}:${DEMO_APP_PORT}`,
      namespace: NAMESPACE,
      path: "flags.json",
    })
    .catch(() => undefined)) as { sidecar?: unknown } | undefined;
  return Array.isArray(view?.sidecar) ? view.sidecar.length : 0;
}

const controlPlane = await startLocalControlPlane({ podNetworkAddress: POD_NETWORK.gateway });
const node = await startLocalNode(controlPlane, { imageArchives: localImageArchives() });
const kc = controlPlane.kubeConfig();
try {
  await installCrds(kc);
  await ensureNamespace(kc, SYSTEM_NAMESPACE);
  await ensureNamespace(kc, NAMESPACE);
  const operator = await runOperator(
    parseOperatorConfig({
      KUBECONFIG: controlPlane.kubeconfigPath,
      SVC_OPERATOR_METRICS_PORT: "0",
      SVC_LOG_LEVEL: "warn",
    }),
  );
  await operator.ready;
  const apps = kc.makeApiClient(AppsV1Api);
  // The app: the demo application, which reads the sidecar beside it on localhost.
  const app = {
    name: "app",
    image: DEMO_IMAGE,
    env: [{ name: "SVC_SIDECAR_PORT", value: String(SIDECAR_PORT) }],
  };
  await apps.createNamespacedDeployment({ namespace: NAMESPACE, body: template("app", [app]) });
  const bareServer = {
    name: "floor",
    image: DEFAULT_SIDECAR_IMAGE,
    command: ["bun", "-e", 'Bun.serve({ port: 8080, fetch: () => new Response("ok") })'],
    readinessProbe: { tcpSocket: { port: 8080 } },
  };
  await apps.createNamespacedDeployment({ namespace: NAMESPACE, body: template("floor", [bareServer]) });

  const rows: { flags: number; sidecar: CgroupMemory; floor: CgroupMemory }[] = [];
  let created = 0;
  for (const count of flagCounts) {
    await createFlags(kc, created, count);
    created = count;
    const pod = await readyPod(
      kc,
      "app",
      (p) => p.spec?.initContainers?.some((c) => c.name === SIDECAR_CONTAINER_NAME) === true,
    );
    const name = pod.metadata?.name ?? "";
    await waitFor(
      () => servedCount(kc, name),
      (served) => served === count,
      {
        what: `the sidecar serving ${count} flags`,
        timeoutMs: 180_000,
        intervalMs: 1000,
      },
    );
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    const floorPod = await readyPod(kc, "floor");
    rows.push({
      flags: count,
      sidecar: cgroupMemory(pod, SIDECAR_CONTAINER_NAME),
      floor: cgroupMemory(floorPod, "floor"),
    });
    process.stderr.write(`measured with ${count} flags\n`);
  }
  await operator.close();

  const mb = (n: number) => n.toFixed(1);
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  console.log(`Node ready in ${node.startupMs} ms (images imported).\n`);
  console.log(
    "| flags | sidecar working set | rss | bare Bun server (floor) working set | rss | working set ÷ floor | rss ÷ floor |",
  );
  console.log("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const { flags, sidecar, floor } of rows)
    console.log(
      `| ${flags} | ${mb(sidecar.workingSetMb)} MB | ${mb(sidecar.rssMb)} MB | ${mb(floor.workingSetMb)} MB | ${mb(floor.rssMb)} MB | ${ratio(sidecar.workingSetMb, floor.workingSetMb)} | ${ratio(sidecar.rssMb, floor.rssMb)} |`,
    );
  console.log(`\n${JSON.stringify(rows)}`);
} finally {
  await node.stop();
  await controlPlane.stop();
}
