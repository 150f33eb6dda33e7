// The health gate's wake-up on the real kube-apiserver: a change to a pod of a watched
// workload's selector queues the plan's round at once; pods of other selectors do not, and a
// plan whose scopes are dropped is woken no more.
import { CoreV1Api } from "@kubernetes/client-node";
import { ObjectWriter } from "@svc/kube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import { PodWatches } from "../src/rollout-pod-watches.ts";

const kc = testKubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const writer = new ObjectWriter(kc, { timeoutMs: 10_000 });
let ns = "";

const pod = (name: string, app: string) =>
  core.createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name, labels: { app } },
      spec: { containers: [{ name: "main", image: "example/web:1" }] },
    },
  });

beforeAll(async () => {
  ns = await testNamespace(kc, "op-pod-watches");
});
afterAll(() => writer.close());

describe("the gate's pod watches", () => {
  it("wake a plan on its workloads' pods only, and stop when dropped", async () => {
    const woken: string[] = [];
    const watches = new PodWatches((plan) => woken.push(plan));
    try {
      watches.watch("checkout", [{ clusterId: "local", writer, namespace: ns, labelSelector: "app=web" }]);
      expect(watches.size).toBe(1);
      // The watch starts with the pods there are (none): give it a moment to be established.
      await new Promise((resolve) => setTimeout(resolve, 500));
      await pod("other-1", "other");
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(woken).toEqual([]);
      await pod("web-1", "web");
      await eventually(
        () => Promise.resolve(woken.length),
        (n) => n > 0,
        "the plan woken",
      );
      expect(new Set(woken)).toEqual(new Set(["checkout"]));
      const before = woken.length;
      watches.watch("checkout", []);
      expect(watches.size).toBe(0);
      await pod("web-2", "web");
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(woken.length).toBe(before);
    } finally {
      watches.stopAll();
    }
  });
});
