// The local node's harness as a user meets it: it says what a machine lacks, one line each, and
// a second run on a machine whose node is taken is told which process has it, and goes without
// (the test run's own node keeps running). The teardown's cleanliness is checked by the global
// setup after every run (leftovers()).
import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { CoreV1Api } from "@kubernetes/client-node";
import { expect, inject, it } from "vitest";
import { testKubeConfig } from "../support/kube.ts";
import { describeOnNode } from "../support/node.ts";

const FIXTURE = resolve(import.meta.dirname, "../fixtures/node-unavailable.ts");
const isRoot = process.getuid?.() === 0;

function unavailable(asUser?: number): string[] {
  const node = [process.execPath, FIXTURE];
  const command =
    asUser === undefined
      ? node
      : ["setpriv", `--reuid=${asUser}`, `--regid=${asUser}`, "--clear-groups", ...node];
  const out = execFileSync(command[0] ?? "", command.slice(1), {
    encoding: "utf8",
    cwd: join(import.meta.dirname, "../.."),
  });
  return JSON.parse(out) as string[];
}

it.skipIf(!isRoot)(
  "names root first when a user without it asks (the tests then report the node's as skipped)",
  () => {
    const missing = unavailable(65532);
    expect(missing[0]).toBe("root: containerd and the kubelet manage mounts, cgroups and network namespaces");
  },
);

describeOnNode("a second run while the node runs", () => {
  it("is told which process runs the machine's node, and the node keeps running", async () => {
    const missing = unavailable();
    expect(missing).toHaveLength(1);
    expect(missing[0]).toMatch(
      /^the machine's node: process \d+ runs one \(one per machine: a bridge and iptables chains\)$/,
    );
    // The process named is this run's (vitest's main process started the node).
    const owner = Number(/process (\d+)/.exec(missing[0] ?? "")?.[1]);
    expect([process.pid, process.ppid]).toContain(owner);
    const node = await testKubeConfig()
      .makeApiClient(CoreV1Api)
      .readNode({ name: inject("nodeName") });
    expect(node.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
  });
});
