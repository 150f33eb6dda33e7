// Starts the one real control plane that every integration test file shares, and, when this
// machine can run one, a real node beside it; stops both after the run whatever the tests did.
// Files isolate themselves by namespace. The node is tainted: only the pods of the tests that
// need a node (test/support/node.ts) tolerate it, so no other test's workload starts pods.
//
// The fault tests (test/reliability) kill and restart these components. They run in a worker
// process while the components are children of this one, so this process serves a loopback
// endpoint for it (test/support/components.ts).
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";
import {
  localImageArchives,
  localNodeUnavailable,
  POD_NETWORK,
  startLocalControlPlane,
  startLocalNode,
  type LocalControlPlane,
  type LocalNode,
} from "@svc/localkube";
import { NODE_TAINT } from "./support/node-taint.ts";
import { unitTestsOnly } from "./support/projects.ts";

declare module "vitest" {
  export interface ProvidedContext {
    kubeconfigPath: string;
    /** The node's name, or "" when none runs (then nodeUnavailable says why). */
    nodeName: string;
    nodeUnavailable: string;
    /** Where test/support/components.ts kills and restarts the shared components. */
    componentsUrl: string;
  }
}

/** SVC_TEST_NODE=false runs the tests without a node (those that need one are skipped). */
function nodeUnavailable(): string[] {
  if (process.env["SVC_TEST_NODE"] === "false") return ["SVC_TEST_NODE=false"];
  return localNodeUnavailable({ imageArchives: localImageArchives() });
}

/** The run's node, stopped and started again whole by a test that needs the machine's node itself. */
interface SharedNode {
  current: LocalNode | undefined;
  /** Starts it (again). */
  start(): Promise<LocalNode>;
}

/**
 * POST /<secret>/{kill,start}/<component>: the shared components, killed (SIGKILL) or started
 * again; /stop/node and /start/node: the node stopped whole (the machine's one node is then free
 * for a test's own, test/e2e/node-harness.test.ts) and started again.
 */
async function serveComponents(controlPlane: LocalControlPlane, node: SharedNode) {
  const secret = randomBytes(16).toString("hex");
  const actions = new Map<string, () => Promise<void>>();
  for (const name of ["etcd", "kube-apiserver", "kube-controller-manager"] as const) {
    actions.set(`kill/${name}`, () => controlPlane.kill(name));
    actions.set(`start/${name}`, () => controlPlane.start(name));
  }
  for (const name of ["kubelet", "containerd"] as const)
    if (node.current !== undefined) {
      actions.set(`kill/${name}`, async () => node.current?.kill(name));
      actions.set(`start/${name}`, async () => node.current?.start(name));
    }
  if (node.current !== undefined) {
    actions.set("stop/node", async () => {
      await node.current?.stop();
      node.current = undefined;
    });
    actions.set("start/node", async () => {
      if (node.current === undefined) await node.start();
    });
  }
  const server: Server = createServer((request, response) => {
    const action = request.method === "POST" ? request.url?.slice(`/${secret}/`.length) : undefined;
    const run = request.url?.startsWith(`/${secret}/`) === true ? actions.get(action ?? "") : undefined;
    if (run === undefined) {
      response.writeHead(404).end();
      return;
    }
    run().then(
      () => response.writeHead(204).end(),
      (error: unknown) => response.writeHead(500).end(String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/${secret}`, close: () => server.close() };
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (unitTestsOnly(project)) return undefined;
  const missing = nodeUnavailable();
  const controlPlane = await startLocalControlPlane(
    missing.length === 0 ? { podNetworkAddress: POD_NETWORK.gateway } : {},
  );
  const node: SharedNode = {
    current: undefined,
    async start() {
      const started = await startLocalNode(controlPlane, {
        imageArchives: localImageArchives(),
        taints: [NODE_TAINT],
        // Mounted ConfigMaps refresh within seconds, so the test of a live file change is short.
        syncFrequencySeconds: 5,
      });
      this.current = started;
      return started;
    },
  };
  try {
    if (missing.length === 0) {
      const started = await node.start();
      process.stdout.write(`local node ${started.name} ready in ${started.startupMs} ms\n`);
    } else {
      process.stdout.write(
        `no local node; the tests that need one are skipped. Missing:\n- ${missing.join("\n- ")}\n`,
      );
    }
  } catch (error) {
    await controlPlane.stop();
    throw error;
  }
  const components = await serveComponents(controlPlane, node);
  project.provide("kubeconfigPath", controlPlane.kubeconfigPath);
  project.provide("nodeName", node.current?.name ?? "");
  project.provide("nodeUnavailable", missing.join("; "));
  project.provide("componentsUrl", components.url);
  return async () => {
    components.close();
    const last = node.current;
    await last?.stop();
    await controlPlane.stop();
    // The node's teardown is checked on every run: a leftover fails it.
    const leftovers = last?.leftovers() ?? [];
    if (leftovers.length > 0)
      throw new Error(`the local node left state on this machine:\n- ${leftovers.join("\n- ")}`);
  };
}
