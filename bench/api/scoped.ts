// Scoped roles' cost (issue 37): the API's request rate for a user whose access is grants only
// (the scope decided per request: the hook's check of a flag's cluster and namespace, a list
// filtered by namespace) beside the same requests by a user with the same role held globally,
// the floor, in the same run. One real control plane, the real `svc api` pinned to CPU 0, load
// (autocannon) on CPU 1; rounds alternate which user goes first.
//
//   node bench/api/scoped.ts [--flags 1000] [--duration 10] [--grants 20] [--rounds 2]
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ensureNamespace, installCrds } from "@svc/kube";
import { startLocalControlPlane } from "@svc/localkube";
import { autocannon, type LoadResult } from "../support/autocannon.ts";
import { seedFlags } from "../support/seed-flags.ts";
import { apiCall as call, loginAdmin, startSvcApi } from "../support/svc-api.ts";

const FLAGS_PER_NAMESPACE = 50;
const { values: args } = parseArgs({
  options: {
    flags: { type: "string", default: "1000" },
    duration: { type: "string", default: "10" },
    grants: { type: "string", default: "20" },
    rounds: { type: "string", default: "2" },
  },
});
const totalFlags = Number(args.flags);
const seconds = Number(args.duration);
const grantCount = Number(args.grants);
const rounds = Number(args.rounds);

const hub = await startLocalControlPlane();
const dir = mkdtempSync(join(tmpdir(), "svc-bench-scoped-"));
let api: { child: ChildProcess; url: string } | undefined;
try {
  const kc = hub.kubeConfig();
  await installCrds(kc);
  await ensureNamespace(kc, "svc-system");
  await seedFlags(kc, totalFlags, FLAGS_PER_NAMESPACE);
  api = await startSvcApi({ KUBECONFIG: hub.kubeconfigPath, SVC_DATABASE_PATH: join(dir, "svc.sqlite") });
  const { url } = api;
  const admin = await loginAdmin(url);
  // The scoped user's grants: the namespace read first among `grantCount` grants (patterns and
  // names), so each request matches through the whole list; the floor holds the role globally.
  const grants = Array.from({ length: grantCount }, (_, i) => ({
    role: "editor",
    clusters: ["local"],
    namespaces: i === grantCount - 1 ? ["bench-0"] : [`team-${i}-*`, `other-${i}`],
  }));
  await call(url, admin, "POST", "/api/v1/users", {
    username: "global-ed",
    password: "bench-password",
    role: "editor",
  });
  await call(url, admin, "POST", "/api/v1/users", {
    username: "scoped-ed",
    password: "bench-password",
    role: "none",
    grants,
  });
  const login = async (username: string) =>
    (
      (await call(url, "", "POST", "/api/v1/auth/login", { username, password: "bench-password" })) as {
        token: string;
      }
    ).token;
  const tokens = { global: await login("global-ed"), scoped: await login("scoped-ed") };
  for (const deadline = Date.now() + 120_000; ;) {
    const all = (await call(url, admin, "GET", "/api/v1/flags")) as unknown[];
    if (all.length >= totalFlags) break;
    if (Date.now() > deadline) throw new Error(`only ${all.length} of ${totalFlags} flags listed`);
    await new Promise((r) => setTimeout(r, 500));
  }

  const paths = {
    "GET one flag (hook: cluster and namespace)": "/api/v1/flags/bench-0/flag-0?clusterId=local",
    "GET a namespace's 50 flags (list filtered)": "/api/v1/flags?clusterId=local&namespace=bench-0",
    "GET /api/v1/auth/me (no scope)": "/api/v1/auth/me",
  };
  const results: Record<string, { global: LoadResult[]; scoped: LoadResult[] }> = {};
  const run = (path: string, token: string) => autocannon(url + path, { connections: 50, seconds, token });
  for (const path of Object.values(paths)) run(path, tokens.scoped); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (const [name, path] of Object.entries(paths)) {
      const order = round % 2 === 0 ? (["global", "scoped"] as const) : (["scoped", "global"] as const);
      const entry = (results[name] ??= { global: [], scoped: [] });
      for (const who of order) entry[who].push(run(path, tokens[who]));
    }
  }
  // Each round's ratio is of two adjacent windows; the median of the rounds is the figure.
  const rows = Object.entries(results).map(([name, { global, scoped }]) => {
    const ratios = global.map((g, i) => (scoped[i] as LoadResult).requestsPerSecond / g.requestsPerSecond);
    const median = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)] ?? 0;
    const cells = global.map((g, i) => {
      const s = scoped[i] as LoadResult;
      return `${Math.round((ratios[i] ?? 0) * 100)} % (${s.requestsPerSecond} / ${g.requestsPerSecond} req/s, non-2xx ${s.non2xx} / ${g.non2xx})`;
    });
    return `| ${name} | **${Math.round(median * 100)} %** | ${cells.join(" | ")} |`;
  });
  const header = ["median", ...Array.from({ length: rounds }, (_, i) => `round ${i + 1}: scoped ÷ global`)];
  process.stdout.write(
    [
      `| request, 50 clients | ${header.join(" | ")} |`,
      `|---|${header.map(() => "---").join("|")}|`,
      ...rows,
      "",
    ].join("\n"),
  );
} finally {
  if (api !== undefined) {
    api.child.kill("SIGTERM");
    await once(api.child, "exit");
  }
  await hub.stop();
  rmSync(dir, { recursive: true, force: true });
}
