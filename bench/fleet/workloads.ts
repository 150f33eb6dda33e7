// The fleet benchmark's workloads: created with a bare client, and followed with watches so the
// bench knows the moment every pod template carries a value without listing 10,000 objects in a loop.
import { AppsV1Api, Watch, type KubeConfig, type V1PodTemplateSpec } from "@kubernetes/client-node";
import { ObjectWriter } from "@svc/kube";
import { pool } from "../support/pool.ts";
import type { SimulatedCluster } from "./simulated-cluster.ts";

export type WorkloadKind = "Deployment" | "StatefulSet" | "DaemonSet";
export const WORKLOAD_KINDS: readonly WorkloadKind[] = ["Deployment", "StatefulSet", "DaemonSet"];
const PLURAL: Record<WorkloadKind, string> = {
  Deployment: "deployments",
  StatefulSet: "statefulsets",
  DaemonSet: "daemonsets",
};

/** Mostly Deployments: one workload in 20 is a StatefulSet and one in 100 a DaemonSet (a pod per node). */
export function workloadKind(i: number): WorkloadKind {
  if (i % 100 === 7) return "DaemonSet";
  return i % 20 === 3 ? "StatefulSet" : "Deployment";
}

export interface Workload {
  kind: WorkloadKind;
  namespace: string;
  name: string;
}

/** `count` workloads spread over `namespaces`, each with one replica pinned to one of `nodes`. */
export function fleetWorkloads(count: number, namespaces: readonly string[]): Workload[] {
  return Array.from({ length: count }, (_, i) => ({
    kind: workloadKind(i),
    namespace: namespaces[i % namespaces.length] ?? "",
    name: `web-${String(i).padStart(5, "0")}`,
  }));
}

export async function createWorkloads(
  kc: KubeConfig,
  workloads: readonly Workload[],
  nodes: readonly string[],
  concurrency: number,
): Promise<void> {
  const apps = kc.makeApiClient(AppsV1Api);
  await pool(
    workloads.map((w, i) => ({ ...w, node: nodes[i % nodes.length] ?? "" })),
    concurrency,
    async ({ kind, namespace, name, node }) => {
      const metadata = { name, labels: { app: name, fleet: "bench" } };
      const selector = { matchLabels: { app: name } };
      const template: V1PodTemplateSpec = {
        metadata: { labels: { app: name } },
        spec: {
          // DaemonSet pods are placed by their controller's node affinity and a scheduler; there is none.
          ...(kind === "DaemonSet" ? {} : { nodeName: node }),
          containers: [{ name: "main", image: "example/web:1" }],
        },
      };
      if (kind === "Deployment")
        await apps.createNamespacedDeployment({
          namespace,
          body: { metadata, spec: { replicas: 1, selector, template } },
        });
      else if (kind === "StatefulSet")
        await apps.createNamespacedStatefulSet({
          namespace,
          body: { metadata, spec: { replicas: 1, serviceName: name, selector, template } },
        });
      else
        await apps.createNamespacedDaemonSet({ namespace, body: { metadata, spec: { selector, template } } });
    },
  );
}

/**
 * The floor: one server-side apply of one env var per workload, sent by a bare client straight to
 * each cluster's kube-apiserver, `concurrency` at a time per cluster (as the operator's per-cluster
 * queues), every cluster at once. Returns the milliseconds taken.
 */
export async function bareApplies(
  clusters: readonly SimulatedCluster[],
  workloads: readonly Workload[],
  concurrency: number,
  value: string,
): Promise<number> {
  const writers = clusters.map(
    (c) => new ObjectWriter(c.controlPlane.kubeConfig(), { timeoutMs: 30_000, fieldManager: "bench-floor" }),
  );
  const started = performance.now();
  await Promise.all(
    writers.map((writer) =>
      pool(workloads, concurrency, ({ kind, namespace, name }) =>
        writer.apply(
          {
            apiVersion: "apps/v1",
            kind,
            metadata: { name, namespace },
            spec: {
              template: { spec: { containers: [{ name: "main", env: [{ name: "FLOOR", value }] }] } },
            },
          },
          { force: true },
        ),
      ),
    ),
  );
  const ms = performance.now() - started;
  for (const writer of writers) await writer.close();
  return ms;
}

/** Deployments whose one replica kwok reported Ready (the simulation works), and all of them. */
export async function availableDeployments(
  clusters: readonly SimulatedCluster[],
): Promise<{ available: number; deployments: number }> {
  let available = 0;
  let deployments = 0;
  for (const c of clusters) {
    const list = await c.controlPlane
      .kubeConfig()
      .makeApiClient(AppsV1Api)
      .listDeploymentForAllNamespaces({ labelSelector: "fleet=bench" });
    deployments += list.items.length;
    available += list.items.filter((d) => d.status?.availableReplicas === 1).length;
  }
  return { available, deployments };
}

interface Watched {
  metadata?: { namespace?: string; name?: string; generation?: number };
  spec?: { template?: V1PodTemplateSpec; replicas?: number };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
  };
}

/**
 * Whether the workload's controller is done with its last change: it has observed it and, for a
 * Deployment, every replica is updated and available and no old one is left. A
 * kube-controller-manager at its default rate (20 requests/s) rolls a fleet's change out for
 * minutes at low CPU: the CPU alone said "at rest" while 4,079 of 9,400 Deployments still rolled.
 * (StatefulSets and DaemonSets: observed only; DaemonSet pods stay Pending without a scheduler.)
 */
function rolledOut(kind: WorkloadKind, { metadata, spec, status }: Watched): boolean {
  if (status?.observedGeneration !== metadata?.generation) return false;
  if (kind !== "Deployment") return true;
  const replicas = spec?.replicas ?? 1;
  return (
    status?.updatedReplicas === replicas &&
    status.replicas === replicas &&
    status.availableReplicas === replicas
  );
}

/**
 * Every workload of one cluster as its watches last saw it: the value of one env var in its pod
 * template, and whether its controller is done with its last change.
 */
export class TemplateTracker {
  readonly #values = new Map<string, string | undefined>();
  readonly #settled = new Map<string, boolean>();
  readonly #stops: AbortController[] = [];

  readonly envName: string;

  private constructor(envName: string) {
    this.envName = envName;
  }

  static async start(kc: KubeConfig, envName: string): Promise<TemplateTracker> {
    const tracker = new TemplateTracker(envName);
    const watch = new Watch(kc);
    // Its default ends a watch after 30 s without an event (a quiet kind); the server's own timeout is enough.
    // (a private field of client-node's Watch, without a constructor option).
    Object.assign(watch, { requestTimeoutMs: 3_600_000 });
    for (const kind of WORKLOAD_KINDS) await tracker.#watch(watch, kind);
    return tracker;
  }

  /**
   * Watches one kind from a fresh list; again when the server ends the watch (its timeout) or a
   * new one cannot start (a loaded kube-apiserver drops the connection): a tracker that stopped
   * watching would hold stale values and keep the bench waiting for rollouts long done.
   */
  async #watch(watch: Watch, kind: WorkloadKind): Promise<void> {
    if (this.#stopped) return;
    const again = () => setTimeout(() => void this.#watch(watch, kind), 1000);
    const started = await watch
      .watch(
        `/apis/apps/v1/${PLURAL[kind]}`,
        { labelSelector: "fleet=bench" },
        (phase, object: Watched) => {
          this.#seen(kind, phase, object);
        },
        (error: unknown) => {
          if (this.#stopped) return;
          if (error !== null && error !== undefined)
            console.error(
              `watch of ${kind}s ended: ${error instanceof Error ? error.message : JSON.stringify(error)}`,
            );
          again();
        },
      )
      .catch((error: unknown) => {
        console.error(
          `watch of ${kind}s could not start: ${error instanceof Error ? error.message : String(error)}`,
        );
        return undefined;
      });
    if (started === undefined) again();
    else this.#stops.push(started);
  }

  #stopped = false;

  #seen(kind: WorkloadKind, phase: string, object: Watched): void {
    const key = `${kind}/${object.metadata?.namespace ?? ""}/${object.metadata?.name ?? ""}`;
    if (phase !== "ADDED" && phase !== "MODIFIED" && phase !== "DELETED") return;
    if (phase === "DELETED") {
      this.#values.delete(key);
      this.#settled.delete(key);
      return;
    }
    const env = object.spec?.template?.spec?.containers[0]?.env ?? [];
    this.#values.set(key, env.find((e) => e.name === this.envName)?.value);
    this.#settled.set(key, rolledOut(kind, object));
  }

  /** How many workloads carry `value`. */
  carrying(value: string): number {
    let n = 0;
    for (const v of this.#values.values()) if (v === value) n++;
    return n;
  }

  /** Whether every workload's controller is done with its latest spec (rolledOut). */
  settled(): boolean {
    return [...this.#settled.values()].every(Boolean);
  }

  get size(): number {
    return this.#values.size;
  }

  stop(): void {
    this.#stopped = true;
    for (const stop of this.#stops) stop.abort();
  }
}
