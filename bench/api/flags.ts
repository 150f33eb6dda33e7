// Flag routes benchmark (DESIGN.md §7: reads come from informer caches, writes go to the cluster).
// Two real control planes (the hub and a second cluster), the real `svc api` command pinned to
// CPU 0, load on CPU 1. Every figure is reported beside the floor it is compared with, measured
// in the same run:
//   - GET one namespace of 50 flags at 50 clients, against the same server's GET /healthz;
//   - the full list of all flags (default 5,000 over 2 clusters) at 1 client: p50;
//   - create and toggle at 1 client, against a bare client-node write of the same object to
//     the same kube-apiserver.
//
//   node bench/api/flags.ts [--flags 5000] [--duration 10] [--writes 200]
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { API_GROUP_VERSION, FEATURE_FLAG } from "@svc/core";
import { ensureNamespace, installCrds } from "@svc/kube";
import { startLocalControlPlane } from "@svc/localkube";
import { autocannon, percentile, timeSequential } from "../support/autocannon.ts";
import { benchFlagSpec, flagsTarget, seedFlags } from "../support/seed-flags.ts";
import { apiCall as call, loginAdmin, startSvcApi } from "../support/svc-api.ts";

const FLAGS_PER_NAMESPACE = 50;
const { values: args } = parseArgs({
  options: {
    flags: { type: "string", default: "5000" },
    duration: { type: "string", default: "10" },
    writes: { type: "string", default: "200" },
  },
});
const totalFlags = Number(args.flags);
const seconds = Number(args.duration);
const writes = Number(args.writes);

const hub = await startLocalControlPlane();
const second = await startLocalControlPlane();
const dir = mkdtempSync(join(tmpdir(), "svc-bench-flags-"));
let api: { child: ChildProcess; url: string } | undefined;
try {
  const hubKc = hub.kubeConfig();
  const secondKc = second.kubeConfig();
  await Promise.all([installCrds(hubKc), installCrds(secondKc)]);
  await ensureNamespace(hubKc, "svc-system");
  const seedStart = performance.now();
  await Promise.all([
    seedFlags(hubKc, Math.ceil(totalFlags / 2), FLAGS_PER_NAMESPACE),
    seedFlags(secondKc, Math.floor(totalFlags / 2), FLAGS_PER_NAMESPACE),
  ]);
  process.stderr.write(`seeded ${totalFlags} flags in ${Math.round(performance.now() - seedStart)} ms\n`);

  api = await startSvcApi({ KUBECONFIG: hub.kubeconfigPath, SVC_DATABASE_PATH: join(dir, "svc.sqlite") });
  const { url } = api;
  const token = await loginAdmin(url);
  await call(url, token, "POST", "/api/v1/clusters", {
    id: "second",
    displayName: "second",
    apiServer: second.server,
    authMethod: "kubeconfig",
    kubeconfig: readFileSync(second.kubeconfigPath, "utf8"),
  });
  // Both clusters' caches are full before anything is measured.
  for (const deadline = Date.now() + 120_000; ;) {
    const all = (await call(url, token, "GET", "/api/v1/flags")) as unknown[];
    if (all.length >= totalFlags) break;
    if (Date.now() > deadline) throw new Error(`only ${all.length} of ${totalFlags} flags listed`);
    await new Promise((r) => setTimeout(r, 500));
  }

  const rows: string[] = [];
  const namespacePath = `/api/v1/flags?clusterId=local&namespace=bench-0`;
  autocannon(url + namespacePath, { connections: 50, seconds, token }); // warm-up
  const floor = autocannon(`${url}/healthz`, { connections: 50, seconds });
  const namespaceList = autocannon(url + namespacePath, { connections: 50, seconds, token });
  const ratio = (a: number, b: number) => `${Math.round((a / b) * 100)} %`;
  rows.push(
    `| GET /healthz (floor), 50 clients | ${floor.requestsPerSecond} req/s, p50 ${floor.p50Ms} ms, p99 ${floor.p99Ms} ms | — |`,
    `| GET ${namespacePath} (50 flags), 50 clients | ${namespaceList.requestsPerSecond} req/s, p50 ${namespaceList.p50Ms} ms, p99 ${namespaceList.p99Ms} ms, ${namespaceList.non2xx} non-2xx | ${ratio(namespaceList.requestsPerSecond, floor.requestsPerSecond)} of /healthz (target ≥ 50 %) |`,
  );

  // The server's side only: the body is received whole but not parsed (a 5,000-flag list is
  // about 2.5 MB of JSON, which a client takes as long to parse as the server takes to send).
  const fullList = await timeSequential(20, async () => {
    const reply = await fetch(`${url}/api/v1/flags`, { headers: { authorization: `Bearer ${token}` } });
    await reply.arrayBuffer();
  });
  rows.push(
    `| GET /api/v1/flags (all ${totalFlags}, 2 clusters), 1 client | p50 ${percentile(fullList, 50).toFixed(1)} ms, p99 ${percentile(fullList, 99).toFixed(1)} ms | target p50 < 50 ms |`,
  );

  // Writes: the API's create and toggle against the same writes made by a bare client-node.
  await ensureNamespace(hubKc, "bench-writes");
  const objects = hubKc.makeApiClient(CustomObjectsApi);
  const bareCreate = await timeSequential(writes, async (i) => {
    await objects.createNamespacedCustomObject({
      ...flagsTarget("bench-writes"),
      body: {
        apiVersion: API_GROUP_VERSION,
        kind: FEATURE_FLAG.kind,
        metadata: { name: `bare-${i}` },
        spec: benchFlagSpec(i),
      },
    });
  });
  const apiCreate = await timeSequential(writes, async (i) => {
    await call(url, token, "POST", "/api/v1/flags", {
      name: `api-${i}`,
      namespace: "bench-writes",
      clusterId: "local",
      ...benchFlagSpec(i),
    });
  });
  const bareToggle = await timeSequential(writes, async (i) => {
    await objects.patchNamespacedCustomObject(
      { ...flagsTarget("bench-writes"), name: `bare-${i}`, body: { spec: { enabled: false } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
  });
  const apiToggle = await timeSequential(writes, async (i) => {
    await call(url, token, "POST", `/api/v1/flags/bench-writes/api-${i}/toggle?clusterId=local`);
  });
  const p50 = (values: number[]) => percentile(values, 50);
  const times = (a: number[], b: number[]) => `${(p50(a) / p50(b)).toFixed(2)}× the bare write (target ≤ 2×)`;
  rows.push(
    `| bare client-node create (floor), 1 client | p50 ${p50(bareCreate).toFixed(1)} ms | — |`,
    `| POST /api/v1/flags, 1 client | p50 ${p50(apiCreate).toFixed(1)} ms | ${times(apiCreate, bareCreate)} |`,
    `| bare client-node merge patch of spec.enabled (floor), 1 client | p50 ${p50(bareToggle).toFixed(1)} ms | — |`,
    `| POST …/toggle, 1 client | p50 ${p50(apiToggle).toFixed(1)} ms | ${times(apiToggle, bareToggle)} |`,
  );
  process.stdout.write(
    ["| measurement | result | against its floor |", "|---|---|---|", ...rows, ""].join("\n"),
  );
} finally {
  if (api !== undefined) {
    api.child.kill("SIGTERM");
    await once(api.child, "exit");
  }
  await Promise.all([hub.stop(), second.stop()]);
  rmSync(dir, { recursive: true, force: true });
}
