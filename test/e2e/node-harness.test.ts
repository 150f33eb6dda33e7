// The local node's harness as a user meets it: it says what a machine lacks, one line each, and
// a second run on a machine whose node is taken is told which process has it, and goes without
// (the test run's own node keeps running); the svc image built by make images runs there; and
// `svc dev` with a node, killed with SIGKILL, then started again and stopped with a terminal's
// Ctrl-C, leaves nothing behind. The teardown's cleanliness is also checked by the global setup
// after every run (leftovers()).
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CoreV1Api } from "@kubernetes/client-node";
import { localImageArchives, localNodeUnavailable } from "@svc/localkube";
import { expect, inject, it } from "vitest";
import { eventually, testKubeConfig, testNamespace } from "../support/kube.ts";
import { startDev, stopDev, type RunningDev } from "../support/dev-process.ts";
import { describeOnNode } from "../support/node.ts";
import { machineState } from "../support/node-machine.ts";
import { NODE_TAINT } from "../support/node-taint.ts";

const FIXTURE = resolve(import.meta.dirname, "../fixtures/node-unavailable.ts");

/** What another process of this run sees: the fixture, run as it is. */
function unavailableToAnotherProcess(): string[] {
  const out = execFileSync(process.execPath, [FIXTURE], {
    encoding: "utf8",
    cwd: join(import.meta.dirname, "../.."),
  });
  return JSON.parse(out) as string[];
}

it("names root first to a user without it (the tests then report the node's as skipped)", () => {
  const missing = localNodeUnavailable({ imageArchives: localImageArchives(), uid: 65532 });
  expect(missing[0]).toBe("root: containerd and the kubelet manage mounts, cgroups and network namespaces");
});

describeOnNode("a second run while the node runs", () => {
  it("is told which process runs the machine's node, and the node keeps running", async () => {
    const missing = unavailableToAnotherProcess();
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

describeOnNode("the svc image on the node", () => {
  it("runs svc as its non-root user on a read-only root filesystem", async () => {
    const kc = testKubeConfig();
    const core = kc.makeApiClient(CoreV1Api);
    const namespace = await testNamespace(kc, "node-svc");
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: "svc-help" },
        spec: {
          restartPolicy: "Never",
          tolerations: [{ key: NODE_TAINT.key, operator: "Exists", effect: NODE_TAINT.effect }],
          containers: [
            {
              name: "svc",
              image: "ghcr.io/svc-io/svc:0.1.0",
              args: ["api", "--help"],
              securityContext: {
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                allowPrivilegeEscalation: false,
              },
            },
          ],
        },
      },
    });
    const pod = await eventually(
      () => core.readNamespacedPod({ namespace, name: "svc-help" }),
      (p) => p.status?.phase === "Succeeded" || p.status?.phase === "Failed",
      "the svc pod finished",
      120_000,
    );
    const log = await core.readNamespacedPodLog({ namespace, name: "svc-help" });
    expect(pod.status?.phase).toBe("Succeeded");
    expect(log).toContain("usage: svc api");
    expect(pod.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(0);
  });
});

/** The run's node stopped (the machine's one node is then free) or started again (global setup). */
async function sharedNode(action: "stop" | "start"): Promise<void> {
  const reply = await fetch(`${inject("componentsUrl")}/${action}/node`, { method: "POST" });
  if (reply.status !== 204)
    throw new Error(`${action} the run's node: ${reply.status} ${await reply.text()}`);
}

describeOnNode("svc dev with a node, killed with SIGKILL, then started again and stopped with Ctrl-C", () => {
  it("starts cleanly over what the killed run left, and its Ctrl-C leaves no process, mount, link, namespace or iptables rule", async () => {
    const devDir = await mkdtemp(join(tmpdir(), "svc-dev-node-test-"));
    const runs: RunningDev[] = [];
    await sharedNode("stop");
    try {
      const before = machineState(devDir);
      const killed = await startDev({ SVC_DEV_NODE: "true" }, devDir);
      runs.push(killed);
      expect(killed.section("demo pods").join("\n")).toMatch(/http:\/\/10\.88\./);
      // kill -9 of svc dev alone: its components, in groups of their own, run on.
      const exited = once(killed.child, "exit");
      killed.child.kill("SIGKILL");
      await exited;
      expect(machineState(devDir).processes).not.toEqual([]);

      const again = await startDev({ SVC_DEV_NODE: "true" }, devDir);
      runs.push(again);
      expect(again.section("demo pods").join("\n")).toMatch(/http:\/\/10\.88\./);
      expect(await stopDev(again)).toBe(130);
      expect(machineState(devDir)).toEqual(before);
      expect(await readdir(devDir)).toEqual([]);
    } finally {
      // A failed run must not keep the machine's node from the rest of the test run.
      for (const run of runs)
        if (run.child.exitCode === null && run.child.signalCode === null) await stopDev(run);
      await sharedNode("start");
    }
  }, 300_000);
});
