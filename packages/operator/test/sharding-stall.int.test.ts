// A sharded replica whose process stalls past the renew deadline (a starved machine, a heap
// snapshot: bench/fleet part (d) saw 5-26 per run) pauses its cluster's writes and keeps its
// caches; once the Lease is renewed (it still names the replica) the writes resume, and a flag
// change made during the stall is delivered once. Before, the replica stopped the cluster,
// dropped its caches and listed the whole cluster again, which stalled it past the next deadline.
import { Writable } from "node:stream";
import { AppsV1Api } from "@kubernetes/client-node";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import type { RunningOperator } from "../src/index.ts";
import { createWorkloads, flagClient, operatorScope, startOperator } from "./support/operator.ts";

const hub = testKubeConfig();
const apps = hub.makeApiClient(AppsV1Api);
const LEASE_MS = 6_000;
let namespace: string;
let operator: RunningOperator | undefined;
/** The operator's log messages, in order. */
const messages: string[] = [];

const limit = async () =>
  (
    await apps.readNamespacedDeployment({ namespace, name: "web" })
  ).spec?.template.spec?.containers[0]?.env?.find((e) => e.name === "FLAG_LIMIT")?.value;
const generation = async () =>
  (await apps.readNamespacedDeployment({ namespace, name: "web" })).metadata?.generation ?? 0;

beforeAll(async () => {
  namespace = await testNamespace(hub, "op-stall");
  const scope = await operatorScope(hub, "op-stall", [namespace]);
  await createWorkloads(hub, namespace, [{ kind: "Deployment", name: "web", labels: { app: "web" } }]);
  await flagClient(hub, namespace).create("limit", {
    type: "integer",
    defaultValue: "1",
    delivery: { envVar: { selector: { matchLabels: { app: "web" } } } },
  });
  const log = pino(
    { level: "info" },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split("\n"))
          if (line !== "") messages.push((JSON.parse(line) as { msg: string }).msg);
        done();
      },
    }),
  );
  operator = await startOperator(
    scope,
    {
      SVC_OPERATOR_SHARDING: "true",
      SVC_OPERATOR_IDENTITY: "stalling",
      SVC_OPERATOR_LEASE_DURATION: `${LEASE_MS / 1000}s`,
    },
    { log },
  );
}, 120_000);

afterAll(async () => {
  await operator?.close();
});

describe("a sharded replica whose process stalls past the renew deadline", () => {
  it("pauses the cluster's writes, keeps its caches, resumes once renewed and delivers a change made meanwhile once", async () => {
    await eventually(limit, (v) => v === "1", "FLAG_LIMIT=1 delivered");
    await operator?.idle();
    const before = await generation();
    const added = messages.filter((m) => m === "cluster added").length;
    expect(added).toBe(1);
    // The change is made, then the event loop blocked past the renew deadline (4 s) and within
    // the duration (6 s), before the replica could act on it.
    await flagClient(hub, namespace).patchSpec("limit", { defaultValue: "2" });
    const blockedUntil = Date.now() + 0.8 * LEASE_MS;
    while (Date.now() < blockedUntil);
    await eventually(limit, (v) => v === "2", "FLAG_LIMIT=2 delivered after the stall");
    await operator?.idle();
    expect(messages).toContain(
      "sharding: the cluster's Lease was not renewed in time; pausing its writes until it is",
    );
    expect(messages).toContain("sharding: the cluster's Lease renewed again; resuming its writes");
    // Its caches kept: the cluster was never removed and listed again.
    expect(messages.filter((m) => m === "cluster added").length).toBe(added);
    expect(messages).not.toContain("cluster removed");
    // Delivered once: one new revision.
    expect((await generation()) - before).toBe(1);
  }, 60_000);
});
