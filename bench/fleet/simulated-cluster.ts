// One cluster of the fleet benchmark: a real local control plane (etcd, kube-apiserver,
// kube-controller-manager) whose Nodes are fakes that kwok (hack/kwok, "kwok controller" mode)
// keeps Ready and whose pods it reports Running and Ready, so Deployments roll and report health
// without a kubelet or a container. No kube-scheduler: the bench's pod templates name their node.
import { join, resolve } from "node:path";
import { CoreV1Api } from "@kubernetes/client-node";
import { startLocalControlPlane, superviseProcess, type LocalControlPlane } from "@svc/localkube";
import { pool } from "../support/pool.ts";

const ROOT = resolve(import.meta.dirname, "../..");
export const KWOK_BIN = process.env["SVC_KWOK_BIN"] ?? join(ROOT, ".cache/kwok/bin");
/** The annotation kwok is told to manage Nodes by (its own convention), so it never touches a real one. */
const FAKE_NODE_ANNOTATION = "kwok.x-k8s.io/node";

export interface SimulatedCluster {
  readonly controlPlane: LocalControlPlane;
  /** Names of its fake Nodes, for pod templates' nodeName. */
  readonly nodes: readonly string[];
  /** kwok's process id (its CPU and memory are the simulation's cost, not svc's). */
  readonly kwokPid: number | undefined;
  stop(): Promise<void>;
}

/** Starts a control plane, creates `nodeCount` fake Nodes and starts kwok against them. */
export async function startSimulatedCluster(nodeCount: number): Promise<SimulatedCluster> {
  // kube-controller-manager at its own default rate (20 requests/s), as clusters run it. A change
  // to every workload takes 10-25 min to roll out here at that rate or at 200 (the machine is the
  // bound); run.ts waits for each cluster to be quiet before measuring.
  const controlPlane = await startLocalControlPlane();
  try {
    const nodes = Array.from({ length: nodeCount }, (_, i) => `kwok-node-${i}`);
    const core = controlPlane.kubeConfig().makeApiClient(CoreV1Api);
    const capacity = { cpu: "1000", memory: "4Ti", pods: "100000" };
    await pool(nodes, 4, (name) =>
      core.createNode({
        body: {
          metadata: {
            name,
            annotations: { [FAKE_NODE_ANNOTATION]: "fake" },
            labels: { "kubernetes.io/hostname": name, type: "kwok" },
          },
          status: { allocatable: capacity, capacity },
        },
      }),
    );
    const kwok = superviseProcess({
      name: "kwok",
      command: join(KWOK_BIN, "kwok"),
      args: [
        `--kubeconfig=${controlPlane.kubeconfigPath}`,
        // Node and pod lifecycles as kwokctl's defaults (copied from the pinned module by build.sh).
        `--config=${join(KWOK_BIN, "stages.yaml")}`,
        `--manage-nodes-with-annotation-selector=${FAKE_NODE_ANNOTATION}=fake`,
        "--node-lease-duration-seconds=40",
        // Pod IPs are only written into status: nothing is ever sent to them.
        "--cidr=10.128.0.0/14",
        "--node-ip=127.0.0.1",
      ],
      logPath: join(controlPlane.dir, "kwok.log"),
    });
    await kwok.waitReady(
      async () =>
        (await core.listNode()).items.every((node) =>
          node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
        ),
      120_000,
      500,
    );
    return {
      controlPlane,
      nodes,
      kwokPid: kwok.pid,
      stop: async () => {
        await kwok.stop({ graceMs: 5000 });
        await controlPlane.stop();
      },
    };
  } catch (error) {
    await controlPlane.stop();
    throw error;
  }
}
