// Part (c) of the fleet benchmark: `svc api`'s first page (GET /api/v1/flags?limit=100) and whole
// list, at a small flag count and at a large one in one cluster, through the real command.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, FEATURE_FLAG } from "@svc/core";
import { waitFor } from "@svc/kube";
import { runOnExit } from "@svc/localkube";
import { pool } from "../support/pool.ts";
import { loginAdmin, startSvcApi } from "../support/svc-api.ts";

export interface ListLatency {
  flags: number;
  firstPageMs: number;
  wholeListMs: number;
}

export interface ApiLatencies {
  small: ListLatency;
  large: ListLatency;
  /** Seconds the bare client took to create the large count's flags. */
  createSeconds: number;
  /** Whether creation stopped at the time budget before reaching the asked count. */
  cappedByBudget: boolean;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

/** Creates flags `from`..`to`-1 in `namespace` with a bare client until done or `deadline` (ms since epoch). */
async function createFlags(kc: KubeConfig, namespace: string, from: number, to: number, deadline: number) {
  const objects = kc.makeApiClient(CustomObjectsApi);
  let created = from;
  await pool(
    Array.from({ length: to - from }, (_, i) => from + i),
    32,
    async (i) => {
      if (Date.now() > deadline) return;
      await objects.createNamespacedCustomObject({
        group: API_GROUP,
        version: "v1alpha1",
        namespace,
        plural: FEATURE_FLAG.plural,
        body: {
          apiVersion: API_GROUP_VERSION,
          kind: FEATURE_FLAG.kind,
          metadata: { name: `flag-${String(i).padStart(6, "0")}` },
          spec: {
            type: "string",
            defaultValue: `value-${i}`,
            description: "fleet benchmark flag",
            delivery: { envVar: { selector: { matchLabels: { team: "nobody" } } } },
          },
        },
      });
      created++;
    },
  );
  return created;
}

/**
 * Starts `svc api` against the hub `kubeconfigPath`, measures with `small` flags in `namespace`
 * of the hub, then creates up to `large` in all (within `budgetSeconds`) and measures again.
 */
export async function measureApiLatency(
  kc: KubeConfig,
  kubeconfigPath: string,
  namespace: string,
  small: number,
  large: number,
  budgetSeconds: number,
): Promise<ApiLatencies> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-fleet-api-"));
  const forgetDir = runOnExit(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  await createFlags(kc, namespace, 0, small, Infinity);
  const { child, url } = await startSvcApi(
    { KUBECONFIG: kubeconfigPath, SVC_DATABASE_PATH: join(dir, "svc.sqlite") },
    "warn",
  );
  const forgetChild = runOnExit(() => child.kill("SIGKILL"));
  try {
    const token = await loginAdmin(url);
    const timed = async (query: string) => {
      const started = performance.now();
      const reply = await fetch(`${url}/api/v1/flags?clusterId=local&namespace=${namespace}${query}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const body = await reply.json();
      if (!reply.ok) throw new Error(`GET flags${query}: ${reply.status} ${JSON.stringify(body)}`);
      return { ms: performance.now() - started, body };
    };
    // The API answers 502 while it cannot list the hub in time (right after (d), the hub's
    // kube-apiserver was that busy once): waited for, as for the flags to appear.
    const count = async () =>
      timed("").then(
        ({ body }) => (body as unknown[]).length,
        (error: unknown) => {
          if (error instanceof Error && error.message.includes(": 502 ")) return -1;
          throw error;
        },
      );
    const measure = async (flags: number, runs: number): Promise<ListLatency> => {
      await waitFor(count, (n) => n === flags, {
        what: `svc api listing ${flags} flags`,
        timeoutMs: 600_000,
        intervalMs: 2000,
      });
      const firstPage: number[] = [];
      const whole: number[] = [];
      for (let i = 0; i < runs; i++) {
        firstPage.push((await timed("&limit=100")).ms);
        whole.push((await timed("")).ms);
      }
      return { flags, firstPageMs: median(firstPage), wholeListMs: median(whole) };
    };
    const smallLatency = await measure(small, 21);
    const started = performance.now();
    const created = await createFlags(kc, namespace, small, large, Date.now() + budgetSeconds * 1000);
    const createSeconds = (performance.now() - started) / 1000;
    const largeLatency = await measure(created, 7);
    return { small: smallLatency, large: largeLatency, createSeconds, cappedByBudget: created < large };
  } finally {
    child.kill("SIGTERM");
    forgetChild();
    rmSync(dir, { recursive: true, force: true });
    forgetDir();
  }
}
