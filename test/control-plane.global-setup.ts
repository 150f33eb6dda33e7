// Starts the one real control plane that every integration test file shares, and, when this
// machine can run one, a real node beside it; stops both after the run whatever the tests did.
// Files isolate themselves by namespace. The node is tainted: only the pods of the tests that
// need a node (test/support/node.ts) tolerate it, so no other test's workload starts pods.
import type { TestProject } from "vitest/node";
import {
  localImageArchives,
  localNodeUnavailable,
  POD_NETWORK,
  startLocalControlPlane,
  startLocalNode,
  type LocalNode,
} from "@svc/kube/testing";
import { NODE_TAINT } from "./support/node-taint.ts";

declare module "vitest" {
  export interface ProvidedContext {
    kubeconfigPath: string;
    /** The node's name, or "" when none runs (then nodeUnavailable says why). */
    nodeName: string;
    nodeUnavailable: string;
  }
}

/** SVC_TEST_NODE=false runs the tests without a node (those that need one are skipped). */
function nodeUnavailable(): string[] {
  if (process.env["SVC_TEST_NODE"] === "false") return ["SVC_TEST_NODE=false"];
  return localNodeUnavailable({ imageArchives: localImageArchives() });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const missing = nodeUnavailable();
  const controlPlane = await startLocalControlPlane(
    missing.length === 0 ? { podNetworkAddress: POD_NETWORK.gateway } : {},
  );
  let node: LocalNode | undefined;
  try {
    if (missing.length === 0) {
      node = await startLocalNode(controlPlane, {
        imageArchives: localImageArchives(),
        taints: [NODE_TAINT],
        // Mounted ConfigMaps refresh within seconds, so the test of a live file change is short.
        syncFrequencySeconds: 5,
      });
      process.stdout.write(`local node ${node.name} ready in ${node.startupMs} ms\n`);
    } else {
      process.stdout.write(
        `no local node; the tests that need one are skipped. Missing:\n- ${missing.join("\n- ")}\n`,
      );
    }
  } catch (error) {
    await controlPlane.stop();
    throw error;
  }
  project.provide("kubeconfigPath", controlPlane.kubeconfigPath);
  project.provide("nodeName", node?.name ?? "");
  project.provide("nodeUnavailable", missing.join("; "));
  return async () => {
    await node?.stop();
    await controlPlane.stop();
    // The node's teardown is checked on every run: a leftover fails it.
    const leftovers = node?.leftovers() ?? [];
    if (leftovers.length > 0)
      throw new Error(`the local node left state on this machine:\n- ${leftovers.join("\n- ")}`);
  };
}
