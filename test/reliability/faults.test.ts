// Fault injection on the whole system: the shared control plane and node (components killed and
// started through test/support/components.ts), a durable PostgreSQL, `svc api` and `svc operator`
// as processes of their own. While a stream of flag creations runs through the API, each
// component in turn is killed (SIGKILL: a crash) and started again after a few seconds, as
// Kubernetes or systemd would. Every creation the API acknowledged (2xx) must then be in the
// cluster, delivered (seen by the running pod, in its mounted ConfigMap) and audited; an envVar
// flag changed before each fault must have rolled its Deployment at most once per acknowledged
// change. The table goes to .cache/reliability/faults.md (docs/reliability.md).
//
// Runs last (the reliability project) as it kills what every other test shares; needs the node.
// SVC_FAULTS_LOG_LEVEL=debug keeps the svc processes' debug logs (in the folder the test names).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { AppsV1Api, CoreV1Api } from "@kubernetes/client-node";
import { SYSTEM_NAMESPACE } from "@svc/core";
import { ensureNamespace, freeLoopbackPort, isReady, waitFor } from "@svc/kube";
import { superviseProcess, type SupervisedProcess } from "@svc/localkube";
import { afterAll, beforeAll, expect, inject, it, onTestFailed } from "vitest";
import { killComponent, startComponent, type SharedComponent } from "../support/components.ts";
import { testKubeConfig, testNamespace } from "../support/kube.ts";
import { demoPodTemplate, describeOnNode, seenFlags, type SeenFlags } from "../support/node.ts";
import { startPostgresServer, type PostgresServer } from "../support/postgres-server.ts";
import { writeReport } from "./report.ts";

const DOWN_MS = 3000;
const INTERVAL_MS = 250;
const ROOT = resolve(import.meta.dirname, "../..");
const PASSWORD = "faults-admin-password";

interface Attempt {
  name: string;
  at: number;
  status: number;
}
interface Fault {
  name: string;
  kill: () => Promise<unknown>;
  start: () => Promise<unknown>;
}
interface SvcProcess extends Fault {
  stop: () => Promise<unknown>;
  /** False once it exited, whether the test killed it or it crashed. */
  running: () => boolean;
}

describeOnNode("faults: each component killed and restarted while flags are created", () => {
  const kc = testKubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  const logDir = mkdtempSync(join(tmpdir(), "svc-faults-"));
  let namespace = "";
  let postgres: PostgresServer | undefined;
  let apiUrl = "";
  let token = "";
  let operatorMetricsPort = 0;
  const processes: SvcProcess[] = [];
  /** A failed step keeps the svc processes' logs, to say why. */
  let keepLogs = false;

  /** A svc command as a process of its own, started again the same way after a kill. */
  function svcProcess(
    command: string,
    env: Record<string, string>,
    ready: () => Promise<boolean>,
  ): SvcProcess {
    let process_: SupervisedProcess | undefined;
    const launch = () =>
      (process_ = superviseProcess({
        name: `svc ${command}`,
        command: process.execPath,
        args: [join(ROOT, "packages/cli/src/main.ts"), command],
        env: {
          ...process.env,
          SVC_LOG_LEVEL: process.env["SVC_FAULTS_LOG_LEVEL"] ?? "warn",
          KUBECONFIG: inject("kubeconfigPath"),
          ...env,
        },
        logPath: join(logDir, `svc-${command}.log`),
      }));
    const handle: SvcProcess = {
      name: `svc ${command}`,
      kill: async () => process_?.stop({ signal: "SIGKILL" }),
      start: async () => {
        if (process_?.running() !== true) launch();
        await process_?.waitReady(ready, 120_000);
      },
      stop: async () => process_?.stop(),
      running: () => process_?.running() === true,
    };
    processes.push(handle);
    return handle;
  }
  const answers = (url: string) => () =>
    fetch(url).then(
      (r) => r.ok,
      () => false,
    );

  async function login(): Promise<void> {
    const reply = await fetch(`${apiUrl}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password: PASSWORD }),
    });
    token = ((await reply.json()) as { token: string }).token;
  }

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

  /** What the demo app sees in the one serving pod of `app`, or undefined while there is not exactly one. */
  async function seen(app: string): Promise<SeenFlags | undefined> {
    const pods =
      (await core.listNamespacedPod({ namespace, labelSelector: `app=${app}` }).catch(() => undefined))
        ?.items ?? [];
    const serving = pods.filter((p) => p.metadata?.deletionTimestamp === undefined && isReady(p));
    if (serving.length !== 1) return undefined;
    return seenFlags(kc, namespace, serving[0]?.metadata?.name ?? "").catch(() => undefined);
  }

  const selector = (app: string) => ({ matchLabels: { app } });
  let rollerValue = 0;
  const acknowledgedRolls: number[] = [];
  /** Changes the envVar flag of Deployment roller (one rolling update per acknowledged change). */
  async function changeRoller(): Promise<void> {
    rollerValue++;
    // A whole definition, without resourceVersion: the last write wins (no edit to guard here).
    const status = await call("PUT", `/api/v1/flags/${namespace}/roll?clusterId=local`, {
      type: "integer",
      defaultValue: String(rollerValue),
      delivery: { envVar: { selector: selector("roller") } },
    });
    if (status < 300) acknowledgedRolls.push(rollerValue);
  }

  // The stream: one configMap flag created every INTERVAL_MS, each its own key of ConfigMap faults.
  const attempts: Attempt[] = [];
  const streaming = { on: true };
  let stream: Promise<void> = Promise.resolve();
  const isAcked = (a: Attempt) => a.status >= 200 && a.status < 300;

  /**
   * Milliseconds until the first flag created after now is seen inside the reader pod (the whole
   * path works again). A fixed target: the stream keeps creating, faster than the kubelet syncs.
   */
  async function endToEnd(label: string): Promise<number> {
    const started = Date.now();
    let target: Attempt | undefined;
    try {
      await waitFor(
        async () => {
          target ??= attempts.find((a) => a.status === 201 && a.at >= started);
          if (target === undefined) return false;
          return (await seen("reader"))?.files[`faults/${target.name}`] === `value of ${target.name}`;
        },
        (ok) => ok,
        { what: `a flag created after ${label} seen in the pod`, timeoutMs: 180_000, intervalMs: 500 },
      );
    } catch (error) {
      throw new Error(`${String(error)}\n${await whereItStopped(target)}`, { cause: error });
    }
    return Date.now() - started;
  }

  /** Where on its way to the pod a created flag stopped: the stage a failed endToEnd names. */
  async function whereItStopped(target: Attempt | undefined): Promise<string> {
    const recent = attempts.slice(-5).map((a) => `${a.name}:${a.status}`);
    const exited = processes.filter((p) => !p.running()).map((p) => p.name);
    if (exited.length > 0) return `${exited.join(" and ")} exited on its own: see its log in ${logDir}`;
    if (target === undefined)
      return `no creation acknowledged since; the last attempts: ${recent.join(", ")}`;
    const flag = await core
      .listNamespacedConfigMap({ namespace, fieldSelector: "metadata.name=faults" })
      .then((list) => list.items[0]?.data?.[target.name], String);
    const pods = await core.listNamespacedPod({ namespace, labelSelector: "app=reader" }).then(
      (list) =>
        list.items.map((p) => {
          const status = p.status?.containerStatuses?.[0];
          return `${p.metadata?.name} ready=${isReady(p)} deleting=${p.metadata?.deletionTimestamp !== undefined} restarts=${status?.restartCount} state=${JSON.stringify(status?.state)}`;
        }),
      String,
    );
    const inPod = await seen("reader").then((s) => s?.files[`faults/${target.name}`], String);
    return [
      `target ${target.name} (acknowledged ${((Date.now() - target.at) / 1000).toFixed(0)} s ago)`,
      `in ConfigMap faults: ${JSON.stringify(flag)}`,
      `reader pods: ${JSON.stringify(pods)}`,
      `seen in the pod: ${JSON.stringify(inPod)}`,
      `operator metrics: ${await fetch(`http://127.0.0.1:${operatorMetricsPort}/metrics`)
        .then((r) => r.text())
        .then(
          (text) =>
            text
              .split("\n")
              .filter((l) => /^svc_operator_(queue|cached_objects)|^workqueue_depth/.test(l))
              .join("; "),
          String,
        )}`,
    ].join("\n");
  }

  const shared = (name: SharedComponent): Fault => ({
    name,
    kill: () => killComponent(name),
    start: () => startComponent(name),
  });
  const faults: Fault[] = [];
  const segments: {
    name: string;
    from: number;
    to: number;
    restartedAt: number;
    recoveredMs: number;
  }[] = [];

  beforeAll(async () => {
    namespace = await testNamespace(kc, "faults");
    await ensureNamespace(kc, SYSTEM_NAMESPACE);
    const server = await startPostgresServer({ durable: true });
    postgres = server;
    const apiPort = await freeLoopbackPort();
    apiUrl = `http://127.0.0.1:${apiPort}`;
    const api = svcProcess(
      "api",
      {
        SVC_API_HOST: "127.0.0.1",
        SVC_API_PORT: String(apiPort),
        SVC_METRICS_HOST: "127.0.0.1",
        SVC_METRICS_PORT: "0",
        SVC_DATABASE_URL: server.url,
        SVC_ADMIN_PASSWORD: PASSWORD,
      },
      answers(`${apiUrl}/readyz`),
    );
    const operatorPort = await freeLoopbackPort();
    operatorMetricsPort = operatorPort;
    const operator = svcProcess(
      "operator",
      { SVC_OPERATOR_METRICS_HOST: "127.0.0.1", SVC_OPERATOR_METRICS_PORT: String(operatorPort) },
      answers(`http://127.0.0.1:${operatorPort}/readyz`),
    );
    await Promise.all([api.start(), operator.start()]);
    await login();
    faults.push(
      shared("etcd"),
      shared("kube-apiserver"),
      shared("kube-controller-manager"),
      { name: "PostgreSQL", kill: () => server.kill(), start: () => server.start() },
      api,
      operator,
      shared("kubelet"),
      shared("containerd"),
    );

    for (const app of ["reader", "roller"])
      await apps.createNamespacedDeployment({
        namespace,
        body: {
          metadata: { name: app },
          spec: { replicas: 1, selector: { matchLabels: { app } }, template: demoPodTemplate(app) },
        },
      });
    const created = await call("POST", "/api/v1/flags", {
      name: "roll",
      namespace,
      clusterId: "local",
      type: "integer",
      defaultValue: "0",
      delivery: { envVar: { selector: selector("roller") } },
    });
    expect(created, "the envVar flag is created").toBe(201);

    stream = (async () => {
      for (let i = 0; streaming.on; i++) {
        const name = `c-${String(i).padStart(5, "0")}`;
        const at = Date.now();
        const status = await call("POST", "/api/v1/flags", {
          name,
          namespace,
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
    await endToEnd("start");
  });

  afterAll(async () => {
    streaming.on = false;
    await stream;
    // Whatever a failed test left down is started again: later teardown needs the whole cluster.
    for (const fault of faults) await fault.start().catch(() => undefined);
    for (const p of processes) await p.stop();
    await postgres?.stop();
    if (process.env["SVC_FAULTS_LOG_LEVEL"] === undefined && !keepLogs)
      rmSync(logDir, { recursive: true, force: true });
    else process.stdout.write(`svc api and svc operator logs kept in ${logDir}\n`);
  });

  for (const name of [
    "etcd",
    "kube-apiserver",
    "kube-controller-manager",
    "PostgreSQL",
    "svc api",
    "svc operator",
    "kubelet",
    "containerd",
  ])
    it(`${name}: killed for ${DOWN_MS / 1000} s and restarted, the whole path works again on its own`, async () => {
      onTestFailed(() => {
        keepLogs = true;
      });
      const fault = faults.find((f) => f.name === name);
      if (fault === undefined) throw new Error(`no fault ${name}`);
      await changeRoller();
      const from = attempts.length;
      await fault.kill();
      await sleep(DOWN_MS);
      await fault.start();
      const restartedAt = Date.now();
      const recoveredMs = await endToEnd(`${name} restarted`);
      // A process the fault made exit would be restarted by Kubernetes, but exiting is the defect.
      expect(
        processes.filter((p) => !p.running()).map((p) => p.name),
        "svc processes that exited on their own",
      ).toEqual([]);
      segments.push({ name, from, to: attempts.length, restartedAt, recoveredMs });
    });

  it("lost no acknowledged creation, audited each, and rolled the Deployment at most once per change", async () => {
    streaming.on = false;
    await stream;
    await changeRoller();
    const acked = attempts.filter(isAcked);
    const ackedSet = new Set(acked.map((a) => a.name));
    const inPod = await waitFor(
      async () => (await seen("reader"))?.files ?? {},
      (files) => acked.every((a) => files[`faults/${a.name}`] === `value of ${a.name}`),
      { what: "every acknowledged flag in the pod", timeoutMs: 120_000, intervalMs: 1000 },
    ).catch((): Record<string, string> => ({}));
    const get = async <T>(path: string) =>
      (await (
        await fetch(`${apiUrl}${path}`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as T;
    const inCluster = new Set(
      (await get<{ name: string }[]>(`/api/v1/flags?clusterId=local&namespace=${namespace}`)).map(
        (f) => f.name,
      ),
    );
    const audited = new Set(
      (
        await get<{ resourceName: string; outcome: string }[]>(
          "/api/v1/audit?resource=flag&action=create&limit=1000",
        )
      )
        .filter((e) => e.outcome === "success")
        .map((e) => e.resourceName.split("/").pop() ?? ""),
    );
    const lost = acked.filter(
      (a) => !inCluster.has(a.name) || inPod[`faults/${a.name}`] !== `value of ${a.name}`,
    );
    const unaudited = acked.filter((a) => !audited.has(a.name));
    // An outage is told as one (502, 503, or no answer while a process is down), never as a bug.
    const internalErrors = attempts.filter((a) => a.status === 500);
    const refusedButApplied = attempts.filter(
      (a) => a.status >= 400 && a.status < 500 && inCluster.has(a.name) && !ackedSet.has(a.name),
    );

    // The roller: the last acknowledged value in its pod, and one rollout per acknowledged change at most.
    const lastRoll = String(acknowledgedRolls.at(-1) ?? 0);
    const rollerEnv = await waitFor(
      async () => (await seen("roller"))?.env["FLAG_ROLL"],
      (v) => v === lastRoll,
      { what: `FLAG_ROLL=${lastRoll} in the roller pod`, timeoutMs: 120_000, intervalMs: 1000 },
    ).catch(() => undefined);
    const revision = Number(
      (await apps.readNamespacedDeployment({ namespace, name: "roller" })).metadata?.annotations?.[
        "deployment.kubernetes.io/revision"
      ],
    );
    // The first template, the flag's first value, then one per acknowledged change.
    const allowedRevision = acknowledgedRolls.length + 2;

    const rows = segments.map(({ name, from, to, restartedAt, recoveredMs }) => {
      const during = attempts.slice(from, to);
      const refused = during.filter((a) => !isAcked(a));
      const statuses = new Map<string, number>();
      for (const a of refused) {
        const key = a.status === 0 ? "no answer in 5 s" : String(a.status);
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      }
      const firstAck = during.find((a) => isAcked(a) && a.at >= restartedAt);
      const cells = [
        name,
        during.length,
        during.filter(isAcked).length,
        refused.length === 0
          ? "0"
          : `${refused.length} (${[...statuses].map(([k, n]) => `${n}× ${k}`).join(", ")})`,
        lost.filter((a) => during.includes(a)).length,
        firstAck === undefined ? "—" : `${((firstAck.at - restartedAt) / 1000).toFixed(1)} s`,
        `${(recoveredMs / 1000).toFixed(1)} s`,
      ];
      return `| ${cells.join(" | ")} |`;
    });
    writeReport(
      "faults",
      [
        `Faults injected ${segments.length}, each down ${DOWN_MS / 1000} s; a creation every ${INTERVAL_MS} ms through the API (${attempts.length} attempted, ${acked.length} acknowledged).`,
        "",
        "| fault (SIGKILL, then restart) | creations while down and recovering | acknowledged | refused or timed out | lost | API acknowledging again after restart | end to end again after restart |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        ...rows,
        "",
        `- Acknowledged creations lost (not in the cluster or not in the pod's mounted ConfigMap): **${lost.length}** of ${acked.length}${
          lost.length > 0
            ? ` (${lost
                .slice(0, 10)
                .map((a) => a.name)
                .join(", ")})`
            : ""
        }.`,
        `- Acknowledged creations without their audit event: **${unaudited.length}** of ${acked.length}.`,
        `- envVar flag: ${acknowledgedRolls.length} acknowledged value changes, Deployment revision ${revision} (at most ${allowedRevision}); the pod sees FLAG_ROLL=${rollerEnv ?? "nothing"} (last acknowledged: ${lastRoll}).`,
        `- Refused creations (4xx) that still appeared in the cluster: ${refusedButApplied.length}.`,
        `- Answers 500 (an outage told as a fault of the server): ${internalErrors.length}.`,
      ].join("\n"),
    );

    expect(acked.length, "creations were acknowledged at all").toBeGreaterThan(0);
    expect(lost.map((a) => a.name)).toEqual([]);
    expect(unaudited.map((a) => a.name)).toEqual([]);
    expect(refusedButApplied.map((a) => a.name)).toEqual([]);
    expect(
      internalErrors.map((a) => a.name),
      "answered 500 during an outage",
    ).toEqual([]);
    expect(rollerEnv).toBe(lastRoll);
    expect(revision).toBeLessThanOrEqual(allowedRevision);
  });
});
