// Fault injection on the whole system, on this machine: a local control plane and node, a durable
// PostgreSQL, `svc api` and `svc operator` as processes. While a stream of flag creations runs
// through the API, each component in turn is killed (SIGKILL: a crash) and started again after a
// few seconds, as Kubernetes or systemd would. Afterwards every creation the API acknowledged
// (2xx) must be in the cluster, delivered (seen by the running pod, in its mounted ConfigMap),
// and audited; an envVar flag changed once per fault must have rolled its Deployment at most
// once per acknowledged change. Prints a Markdown table (docs/reliability.md) and exits 1 if
// anything acknowledged was lost.
//
//   node test/reliability/faults.ts [--down 3] [--interval 250]     (make reliability)
//
// Needs what the local node needs (root, make node-deps, make images) and PostgreSQL (make postgres).
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { AppsV1Api, CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { SYSTEM_NAMESPACE } from "@svc/core";
import { ensureNamespace, freeLoopbackPort, installCrds, isReady, waitFor } from "@svc/kube";
import {
  localImageArchives,
  localNodeUnavailable,
  POD_NETWORK,
  startLocalControlPlane,
  startLocalNode,
  superviseProcess,
  type SupervisedProcess,
} from "@svc/kube/testing";
import { DEMO_APP_PORT, DEMO_IMAGE } from "../../packages/cli/src/dev/demo.ts";
import { startPostgresServer } from "../support/postgres-server.ts";

const { values: args } = parseArgs({
  options: { down: { type: "string", default: "3" }, interval: { type: "string", default: "250" } },
});
const DOWN_MS = Number(args.down) * 1000;
const INTERVAL_MS = Number(args.interval);
const ROOT = resolve(import.meta.dirname, "../..");
const NAMESPACE = "faults";
const PASSWORD = "faults-admin-password";

const missing = localNodeUnavailable({ imageArchives: localImageArchives() });
if (missing.length > 0) {
  process.stderr.write(`this machine cannot run a local node; missing:\n- ${missing.join("\n- ")}\n`);
  process.exit(1);
}

const postgres = await startPostgresServer({ durable: true });
const controlPlane = await startLocalControlPlane({ podNetworkAddress: POD_NETWORK.gateway });
// Mounted ConfigMaps refresh every 5 s, so that delivery into the pod is seen within seconds.
const node = await startLocalNode(controlPlane, {
  imageArchives: localImageArchives(),
  syncFrequencySeconds: 5,
});
const kc: KubeConfig = controlPlane.kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const apps = kc.makeApiClient(AppsV1Api);

/** A svc command as a process of its own, started again the same way after a kill. */
function svcProcess(command: string, env: Record<string, string>) {
  let process_: SupervisedProcess | undefined;
  const launch = () =>
    (process_ = superviseProcess({
      name: `svc ${command}`,
      command: process.execPath,
      args: [join(ROOT, "packages/cli/src/main.ts"), command],
      env: { ...process.env, SVC_LOG_LEVEL: "warn", KUBECONFIG: controlPlane.kubeconfigPath, ...env },
      logPath: join(controlPlane.dir, `svc-${command}.log`),
    }));
  launch();
  return {
    kill: async () => process_?.stop({ signal: "SIGKILL" }),
    start: async (ready: () => Promise<boolean>) => {
      if (process_?.running() !== true) launch();
      await process_?.waitReady(ready, 120_000);
    },
    stop: async () => process_?.stop(),
    waitReady: (ready: () => Promise<boolean>) => process_?.waitReady(ready, 120_000),
  };
}

await installCrds(kc);
await ensureNamespace(kc, SYSTEM_NAMESPACE);
await ensureNamespace(kc, NAMESPACE);
const apiPort = await freeLoopbackPort();
const apiUrl = `http://127.0.0.1:${apiPort}`;
const api = svcProcess("api", {
  SVC_API_HOST: "127.0.0.1",
  SVC_API_PORT: String(apiPort),
  SVC_METRICS_HOST: "127.0.0.1",
  SVC_METRICS_PORT: "0",
  SVC_DATABASE_URL: postgres.url,
  SVC_ADMIN_PASSWORD: PASSWORD,
});
const apiReady = () =>
  fetch(`${apiUrl}/readyz`).then(
    (r) => r.ok,
    () => false,
  );
await api.waitReady(apiReady);
const operatorPort = await freeLoopbackPort();
const operator = svcProcess("operator", {
  SVC_OPERATOR_METRICS_HOST: "127.0.0.1",
  SVC_OPERATOR_METRICS_PORT: String(operatorPort),
});
const operatorReady = () =>
  fetch(`http://127.0.0.1:${operatorPort}/readyz`).then(
    (r) => r.ok,
    () => false,
  );

let token = "";
async function login(): Promise<void> {
  const reply = await fetch(`${apiUrl}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: PASSWORD }),
  });
  token = ((await reply.json()) as { token: string }).token;
}
await login();

/** One API call; the status, or 0 when it failed or took longer than 5 s. */
async function call(method: string, path: string, body?: unknown): Promise<number> {
  try {
    const reply = await fetch(`${apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(5000),
    });
    await reply.arrayBuffer();
    return reply.status;
  } catch {
    return 0;
  }
}

const template = (app: string) => ({
  metadata: { labels: { app } },
  spec: {
    terminationGracePeriodSeconds: 2,
    containers: [
      {
        name: "app",
        image: DEMO_IMAGE,
        readinessProbe: { httpGet: { path: "/healthz", port: DEMO_APP_PORT }, periodSeconds: 1 },
      },
    ],
  },
});
for (const app of ["reader", "roller"])
  await apps.createNamespacedDeployment({
    namespace: NAMESPACE,
    body: {
      metadata: { name: app },
      spec: { replicas: 1, selector: { matchLabels: { app } }, template: template(app) },
    },
  });
const selector = (app: string) => ({ matchLabels: { app } });
let rollerValue = 0;
const acknowledgedRolls: number[] = [];
/** Changes the envVar flag of Deployment roller (one rolling update per acknowledged change). */
async function changeRoller(): Promise<void> {
  rollerValue++;
  // A whole definition, without resourceVersion: the last write wins (no edit to guard here).
  const status = await call("PUT", `/api/v1/flags/${NAMESPACE}/roll?clusterId=local`, {
    type: "integer",
    defaultValue: String(rollerValue),
    delivery: { envVar: { selector: selector("roller") } },
  });
  if (status < 300) acknowledgedRolls.push(rollerValue);
}
const created = await call("POST", "/api/v1/flags", {
  name: "roll",
  namespace: NAMESPACE,
  clusterId: "local",
  type: "integer",
  defaultValue: "0",
  delivery: { envVar: { selector: selector("roller") } },
});
if (created !== 201) throw new Error(`could not create the envVar flag: ${created}`);

/** The demo app's view of the pod of `app` (through the kube-apiserver's proxy). */
async function seen(
  app: string,
): Promise<{ env: Record<string, string>; files: Record<string, string> } | undefined> {
  const pods =
    (
      await core
        .listNamespacedPod({ namespace: NAMESPACE, labelSelector: `app=${app}` })
        .catch(() => undefined)
    )?.items ?? [];
  const ready = pods.filter((p) => p.metadata?.deletionTimestamp === undefined && isReady(p));
  if (ready.length !== 1) return undefined;
  return (await core
    .connectGetNamespacedPodProxyWithPath({
      name: `${ready[0]?.metadata?.name ?? ""}:${DEMO_APP_PORT}`,
      namespace: NAMESPACE,
      path: "flags.json",
    })
    .catch(() => undefined)) as { env: Record<string, string>; files: Record<string, string> } | undefined;
}

// The stream: one configMap flag created every INTERVAL_MS, each its own key of ConfigMap faults.
interface Attempt {
  name: string;
  at: number;
  status: number;
}
const attempts: Attempt[] = [];
const streaming = { on: true };
const stream = (async () => {
  for (let i = 0; streaming.on; i++) {
    const name = `c-${String(i).padStart(5, "0")}`;
    const at = Date.now();
    const status = await call("POST", "/api/v1/flags", {
      name,
      namespace: NAMESPACE,
      clusterId: "local",
      type: "string",
      defaultValue: `value of ${name}`,
      delivery: { configMap: { configMapName: "faults", key: name, selector: selector("reader") } },
    });
    if (status === 401) await login().catch(() => undefined);
    attempts.push({ name, at, status });
    await sleep(INTERVAL_MS);
  }
})();

/**
 * Milliseconds until the first flag created after now is seen inside the reader pod (the whole
 * path works again). A fixed target: the stream keeps creating, faster than the kubelet syncs.
 */
async function endToEnd(label: string): Promise<number> {
  const started = Date.now();
  let target: Attempt | undefined;
  await waitFor(
    async () => {
      target ??= attempts.find((a) => a.status === 201 && a.at >= started);
      if (target === undefined) return false;
      return (await seen("reader"))?.files[`faults/${target.name}`] === `value of ${target.name}`;
    },
    (ok) => ok,
    { what: `a flag created after ${label} seen in the pod`, timeoutMs: 180_000, intervalMs: 500 },
  );
  return Date.now() - started;
}

const faults: { name: string; kill: () => Promise<unknown>; start: () => Promise<unknown> }[] = [
  { name: "etcd", kill: () => controlPlane.kill("etcd"), start: () => controlPlane.start("etcd") },
  {
    name: "kube-apiserver",
    kill: () => controlPlane.kill("kube-apiserver"),
    start: () => controlPlane.start("kube-apiserver"),
  },
  { name: "PostgreSQL", kill: () => postgres.kill(), start: () => postgres.start() },
  { name: "svc api", kill: () => api.kill(), start: () => api.start(apiReady) },
  { name: "svc operator", kill: () => operator.kill(), start: () => operator.start(operatorReady) },
  { name: "kubelet", kill: () => node.kill("kubelet"), start: () => node.start("kubelet") },
  { name: "containerd", kill: () => node.kill("containerd"), start: () => node.start("containerd") },
];

/** Each fault: the creations attempted from its kill until the path worked again. */
const segments: { name: string; from: number; to: number; recoveredMs: number }[] = [];
const exitCode = await (async () => {
  try {
    await endToEnd("start");
    for (const fault of faults) {
      await changeRoller();
      const from = attempts.length;
      await fault.kill();
      await sleep(DOWN_MS);
      await fault.start();
      const recoveredMs = await endToEnd(`${fault.name} restarted`);
      segments.push({ name: fault.name, from, to: attempts.length, recoveredMs });
      process.stderr.write(`${fault.name}: recovered in ${recoveredMs} ms\n`);
    }
    streaming.on = false;
    await stream;
    await changeRoller();

    // Every acknowledged creation: in the cluster, delivered into the pod, audited.
    const acked = attempts.filter((a) => a.status >= 200 && a.status < 300);
    const ackedSet = new Set(acked.map((a) => a.name));
    const inPod = await waitFor(
      async () => (await seen("reader"))?.files ?? {},
      (files) => acked.every((a) => files[`faults/${a.name}`] === `value of ${a.name}`),
      { what: "every acknowledged flag in the pod", timeoutMs: 120_000, intervalMs: 1000 },
    ).catch((): Record<string, string> => ({}));
    const flags = (await (
      await fetch(`${apiUrl}/api/v1/flags?clusterId=local&namespace=${NAMESPACE}`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { name: string }[];
    const inCluster = new Set(flags.map((f) => f.name));
    const audit = (await (
      await fetch(`${apiUrl}/api/v1/audit?resource=flag&action=create&limit=1000`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { resourceName: string; outcome: string }[];
    const audited = new Set(
      audit.filter((e) => e.outcome === "success").map((e) => e.resourceName.split("/").pop() ?? ""),
    );
    const lost = acked.filter(
      (a) => !inCluster.has(a.name) || inPod[`faults/${a.name}`] !== `value of ${a.name}`,
    );
    const unaudited = acked.filter((a) => !audited.has(a.name));

    // The roller: the last acknowledged value in its pod, and one rollout per acknowledged change at most.
    const lastRoll = String(acknowledgedRolls.at(-1) ?? 0);
    await waitFor(
      async () => (await seen("roller"))?.env["FLAG_ROLL"],
      (v) => v === lastRoll,
      {
        what: `FLAG_ROLL=${lastRoll} in the roller pod`,
        timeoutMs: 120_000,
        intervalMs: 1000,
      },
    ).catch(() => undefined);
    const rollerEnv = (await seen("roller"))?.env["FLAG_ROLL"];
    const revision = Number(
      (await apps.readNamespacedDeployment({ namespace: NAMESPACE, name: "roller" })).metadata?.annotations?.[
        "deployment.kubernetes.io/revision"
      ],
    );

    console.log(
      `Faults injected ${faults.length}, each down ${DOWN_MS / 1000} s; a creation every ${INTERVAL_MS} ms through the API (${attempts.length} attempted, ${acked.length} acknowledged).\n`,
    );
    console.log(
      "| fault (SIGKILL, then restart) | creations while down and recovering | acknowledged | refused or timed out | lost | end to end again after restart |",
    );
    console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
    const isAcked = (a: Attempt) => a.status >= 200 && a.status < 300;
    for (const { name, from, to, recoveredMs } of segments) {
      const during = attempts.slice(from, to);
      const lostHere = lost.filter((a) => during.includes(a)).length;
      console.log(
        `| ${name} | ${during.length} | ${during.filter(isAcked).length} | ${during.filter((a) => !isAcked(a)).length} | ${lostHere} | ${(recoveredMs / 1000).toFixed(1)} s |`,
      );
    }
    console.log(
      `\nAcknowledged creations lost (not in the cluster or not in the pod's mounted ConfigMap): **${lost.length}** of ${acked.length}${
        lost.length > 0
          ? ` (${lost
              .slice(0, 10)
              .map((a) => a.name)
              .join(", ")})`
          : ""
      }.`,
    );
    console.log(
      `Acknowledged creations without their audit event: **${unaudited.length}** of ${acked.length}.`,
    );
    console.log(
      `envVar flag: ${acknowledgedRolls.length} acknowledged value changes, Deployment revision ${revision} (at most ${acknowledgedRolls.length + 2} allowed: the first template, the flag's first value, one per change); the pod sees FLAG_ROLL=${rollerEnv ?? "nothing"} (last acknowledged: ${lastRoll}).`,
    );
    console.log(
      `Refused creations that still appeared in the cluster: ${attempts.filter((a) => a.status >= 400 && a.status < 500 && inCluster.has(a.name) && !ackedSet.has(a.name)).length} (a timed-out request may or may not have been applied).`,
    );
    const rolledTooOften = revision > acknowledgedRolls.length + 2;
    return lost.length === 0 && unaudited.length === 0 && !rolledTooOften && rollerEnv === lastRoll ? 0 : 1;
  } finally {
    streaming.on = false;
    await stream;
    await operator.stop();
    await api.stop();
    await node.stop();
    await controlPlane.stop();
    await postgres.stop();
  }
})();
process.exit(exitCode);
