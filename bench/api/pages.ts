// Paged flag lists (docs/api.md "Paged lists"): one real control plane, the real `svc api`
// command; 1 client, sequential requests, each body read whole (not parsed). The floor is issue
// 22's: the first page of a fleet of 100 flags, measured first in the same run, before the list
// grows to --flags (100 to a namespace). Then, each beside that floor:
//   - the first page (limit=100) of one 100-flag namespace, and of all flags;
//   - a page from the middle of the walk (a continue token);
//   - the whole unpaged list, and its 304 revalidation (If-None-Match).
//
//   node bench/api/pages.ts [--flags 100000] [--requests 50]
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureNamespace, installCrds } from "@svc/kube";
import { startLocalControlPlane } from "@svc/localkube";
import { percentile, timeSequential } from "../support/autocannon.ts";
import { seedFlags } from "../support/seed-flags.ts";
import { loginAdmin, startSvcApi } from "../support/svc-api.ts";

const PER_NAMESPACE = 100;
const { values: args } = parseArgs({
  options: {
    flags: { type: "string", default: "100000" },
    requests: { type: "string", default: "50" },
  },
});
const totalFlags = Number(args.flags);
const requests = Number(args.requests);

const plane = await startLocalControlPlane();
const dir = mkdtempSync(join(tmpdir(), "svc-bench-pages-"));
let api: { child: ChildProcess; url: string } | undefined;
try {
  const kc = plane.kubeConfig();
  await installCrds(kc);
  await ensureNamespace(kc, "svc-system");
  await seedFlags(kc, PER_NAMESPACE, PER_NAMESPACE);
  api = await startSvcApi({ KUBECONFIG: plane.kubeconfigPath, SVC_DATABASE_PATH: join(dir, "svc.sqlite") });
  const { url } = api;
  const token = await loginAdmin(url);
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(url + path, { headers: { authorization: `Bearer ${token}`, ...headers } });
  /** Waits until the API's cache lists `count` flags: nothing is measured on a cache still filling. */
  const cacheHolds = async (count: number) => {
    for (const deadline = Date.now() + 120_000 + count * 5; ;) {
      const page = (await (await get("/api/v1/flags?clusterId=local&limit=1")).json()) as {
        metadata: { remainingItemCount: number };
      };
      if (page.metadata.remainingItemCount + 1 >= count) return;
      if (Date.now() > deadline) throw new Error(`only ${page.metadata.remainingItemCount + 1} flags listed`);
      await new Promise((r) => setTimeout(r, 500));
    }
  };
  const timed = (path: string, headers: Record<string, string> = {}, status = 200) =>
    timeSequential(requests, async () => {
      const reply = await get(path, headers);
      await reply.arrayBuffer();
      if (reply.status !== status) throw new Error(`${path}: ${reply.status}`);
    });
  const firstPage = "/api/v1/flags?clusterId=local&limit=100";
  await cacheHolds(PER_NAMESPACE);
  await timed(firstPage); // warm-up
  const floorMs = await timed(firstPage);
  const floorP50 = percentile(floorMs, 50);
  const rows = [
    `| first page (\`limit=100\`) of a fleet of ${PER_NAMESPACE} flags (floor) | p50 ${floorP50.toFixed(2)} ms, p99 ${percentile(floorMs, 99).toFixed(2)} ms | 1.00× |`,
  ];

  const seedStart = performance.now();
  await seedFlags(kc, totalFlags, PER_NAMESPACE, PER_NAMESPACE);
  process.stderr.write(`seeded ${totalFlags} flags in ${Math.round(performance.now() - seedStart)} ms\n`);
  const fillStart = performance.now();
  await cacheHolds(totalFlags);
  process.stderr.write(`API cache full ${Math.round(performance.now() - fillStart)} ms after the seed\n`);
  // A token from the middle of the walk: pages of 1,000 (the largest limit) up to half the list.
  let middle = "";
  for (let listed = 0; listed < totalFlags / 2; listed += 1000) {
    const page = (await (
      await get(`/api/v1/flags?clusterId=local&limit=1000&continue=${middle}`)
    ).json()) as {
      metadata: { continue: string };
    };
    middle = page.metadata.continue;
  }
  const whole = await get("/api/v1/flags?clusterId=local");
  const etag = whole.headers.get("etag") ?? "";
  const wholeBytes = (await whole.arrayBuffer()).byteLength;

  const cases = [
    [
      `first page, one namespace of 100 among ${totalFlags}`,
      "/api/v1/flags?clusterId=local&namespace=bench-0&limit=100",
    ],
    [`first page of ${totalFlags}`, firstPage],
    [`middle page of ${totalFlags} (continue)`, `/api/v1/flags?clusterId=local&limit=100&continue=${middle}`],
    [
      `whole list of ${totalFlags}, unpaged (${Math.round(wholeBytes / 1024)} KiB)`,
      "/api/v1/flags?clusterId=local",
    ],
  ] as const;
  for (const [what, path] of cases) {
    await timed(path); // warm-up
    const ms = await timed(path);
    const p50 = percentile(ms, 50);
    rows.push(
      `| ${what} | p50 ${p50.toFixed(2)} ms, p99 ${percentile(ms, 99).toFixed(2)} ms | ${(p50 / floorP50).toFixed(2)}× |`,
    );
  }
  const revalidated = await timed("/api/v1/flags?clusterId=local", { "if-none-match": etag }, 304);
  rows.push(
    `| whole list, If-None-Match unchanged → 304 (no body) | p50 ${percentile(revalidated, 50).toFixed(2)} ms, p99 ${percentile(revalidated, 99).toFixed(2)} ms | ${(percentile(revalidated, 50) / floorP50).toFixed(2)}× |`,
  );
  process.stdout.write(
    ["| request (1 client, sequential) | latency | × the floor |", "|---|---|---|", ...rows, ""].join("\n"),
  );
} finally {
  if (api !== undefined) {
    api.child.kill("SIGTERM");
    await once(api.child, "exit");
  }
  await plane.stop();
  rmSync(dir, { recursive: true, force: true });
}
