// The sidecar's real memory in its pod, on the local node: the operator injects `svc sidecar`
// (the image of deploy/Dockerfile, on Bun) into a Deployment, and the kernel's own account of
// its container (cgroup v1 memory controller) is read as the flags it serves grow (the demo app
// beside it counts them). The floor, in the same run and on the same node: a bare Bun HTTP
// server in a container of the same image.
//
//   node bench/node/sidecar-memory.ts [--flags 10,1000,5000] [--targeted 5000] [--settle 10]
//
// --targeted: that many flags with two variants and a rule (every other one a 50/50 fractional
// split, the others an `if` on a tenant attribute) for a second sidecar, in a namespace of their
// own; measured once loaded and once more after one OFREP bulk evaluation has evaluated them all.
//
// Needs what a local node needs (root, make node-deps, make images). Working set is what the
// kubelet reports and evicts by: usage minus inactive page cache; rss is anonymous memory.
// Prints a Markdown table (paste into bench/RESULTS.md) and the raw numbers as JSON.
import { validOrThrow } from "@svc/core/schema/field-errors";
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
import { localImageArchives, POD_NETWORK, startLocalControlPlane, startLocalNode } from "@svc/localkube";
import { DEFAULT_SIDECAR_IMAGE, parseOperatorConfig, runOperator } from "@svc/operator";
import { DEMO_APP_PORT, DEMO_IMAGE } from "../../packages/cli/src/dev/demo.ts";
import { sidecarRelay } from "../../test/support/sidecar-relay.ts";
import { exitUnlessLocalNode } from "../support/local-node.ts";
import { pool } from "../support/pool.ts";
import { targetedSpec } from "../support/targeted-flags.ts";
import { cgroupMemory, type CgroupMemory } from "./cgroup-memory.ts";

const { values: args } = parseArgs({
  options: {
    flags: { type: "string", default: "10,1000,5000" },
    settle: { type: "string", default: "10" },
    targeted: { type: "string", default: "5000" },
  },
});
const flagCounts = args.flags.split(",").map(Number);
const settleMs = Number(args.settle) * 1000;
const targetedCount = Number(args.targeted);
const NAMESPACE = "bench";
/** The targeted flags' namespace: a sidecar serves every flag of its namespace. */
const TARGETED_NAMESPACE = "bench-targeted";
const SIDECAR_PORT = 8514;
const RELAY_PORT = 8515;

exitUnlessLocalNode();

const template = (app: string, containers: V1Container[]) => ({
  metadata: { name: app },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app } },
    template: { metadata: { labels: { app } }, spec: { terminationGracePeriodSeconds: 1, containers } },
  },
});

const withSidecar = (p: V1Pod) =>
  p.spec?.initContainers?.some((c) => c.name === SIDECAR_CONTAINER_NAME) === true;

async function readyPod(
  kc: KubeConfig,
  app: string,
  check: (pod: V1Pod) => boolean = () => true,
  namespace = NAMESPACE,
): Promise<V1Pod> {
  const core = kc.makeApiClient(CoreV1Api);
  const pods = await waitFor(
    async () => (await core.listNamespacedPod({ namespace, labelSelector: `app=${app}` })).items,
    (items) => items.length === 1 && items.every((p) => isReady(p) && check(p)),
    { what: `pod of ${app} ready`, timeoutMs: 180_000, intervalMs: 500 },
  );
  return pods[0] as V1Pod;
}

const sidecarDelivery = (app: string) => ({
  sidecar: { port: SIDECAR_PORT, selector: { matchLabels: { app } } },
});

const staticSpec = (i: number) => ({
  type: "string",
  defaultValue: `value ${i} of a flag served by the sidecar`,
  delivery: sidecarDelivery("app"),
});

/** A targeted flag (bench/support/targeted-flags.ts), served by the targeted sidecar. */
const targetedFlag = (i: number) => ({ ...targetedSpec(i), delivery: sidecarDelivery("targeted") });

async function createFlags(
  kc: KubeConfig,
  namespace: string,
  from: number,
  to: number,
  spec: (i: number) => object,
): Promise<void> {
  const api = kc.makeApiClient(CustomObjectsApi);
  const indexes = Array.from({ length: to - from }, (_, i) => from + i);
  await pool(indexes, 16, async (i) => {
    await api.createNamespacedCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      namespace,
      plural: FEATURE_FLAG.plural,
      body: {
        apiVersion: API_GROUP_VERSION,
        kind: FEATURE_FLAG.kind,
        metadata: { name: `flag-${String(i).padStart(5, "0")}` },
        spec: spec(i),
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
    validOrThrow(
      parseOperatorConfig({
        KUBECONFIG: controlPlane.kubeconfigPath,
        SVC_OPERATOR_METRICS_PORT: "0",
        SVC_LOG_LEVEL: "warn",
      }),
    ),
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

  const rows: { flags: string; sidecar: CgroupMemory; floor: CgroupMemory }[] = [];
  const measure = async (flags: string, pod: V1Pod) => {
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    const floorPod = await readyPod(kc, "floor");
    rows.push({
      flags,
      sidecar: cgroupMemory(pod, SIDECAR_CONTAINER_NAME),
      floor: cgroupMemory(floorPod, "floor"),
    });
    process.stderr.write(`measured: ${flags}\n`);
  };
  const serving = (count: number, served: () => Promise<number>) =>
    waitFor(served, (n) => n === count, {
      what: `the sidecar serving ${count} flags`,
      timeoutMs: 180_000,
      intervalMs: 1000,
    });

  let created = 0;
  for (const count of flagCounts) {
    await createFlags(kc, NAMESPACE, created, count, staticSpec);
    created = count;
    const pod = await readyPod(kc, "app", withSidecar);
    await serving(count, () => servedCount(kc, pod.metadata?.name ?? ""));
    await measure(`${count} static`, pod);
  }

  if (targetedCount > 0) {
    // Its own sidecar, reached from here through a relay container in its pod.
    await ensureNamespace(kc, TARGETED_NAMESPACE);
    await apps.createNamespacedDeployment({
      namespace: TARGETED_NAMESPACE,
      body: template("targeted", [sidecarRelay(SIDECAR_PORT, RELAY_PORT)]),
    });
    await createFlags(kc, TARGETED_NAMESPACE, 0, targetedCount, targetedFlag);
    const pod = await readyPod(kc, "targeted", withSidecar, TARGETED_NAMESPACE);
    const base = `http://${pod.status?.podIP ?? ""}:${RELAY_PORT}`;
    await serving(targetedCount, async () => {
      const flags = await fetch(`${base}/flags`)
        .then((r): Promise<unknown> => r.json())
        .catch(() => []);
      return Array.isArray(flags) ? flags.length : 0;
    });
    await measure(`${targetedCount} targeted, loaded`, pod);
    // A rule compiled only when first evaluated would show here: OFREP's bulk evaluates them all.
    const bulk = await fetch(`${base}/ofrep/v1/evaluate/flags`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ context: { targetingKey: "user-1", tenant: "tenant-1" } }),
    });
    const evaluated = ((await bulk.json()) as { flags?: unknown[] }).flags?.length ?? 0;
    if (bulk.status !== 200 || evaluated !== targetedCount)
      throw new Error(`bulk evaluation answered ${bulk.status} with ${evaluated} flags`);
    await measure(`${targetedCount} targeted, each evaluated once`, pod);
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
