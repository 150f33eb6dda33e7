// Two replicas, one Lease: only the leader writes; the standby takes over when the leader
// stops, and applies what changed meanwhile.
import { AppsV1Api } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import type { RunningOperator } from "../src/index.ts";
import {
  createWorkloads,
  flagClient,
  operatorScope,
  startOperator,
  type OperatorScope,
} from "./support/operator.ts";

const kc = testKubeConfig();
const apps = kc.makeApiClient(AppsV1Api);
let ns: string;
let scope: OperatorScope;
let flags: ReturnType<typeof flagClient>;
const running: RunningOperator[] = [];

const electing = { SVC_OPERATOR_LEADER_ELECTION: "true", SVC_OPERATOR_LEASE_DURATION: "3s" };
const flagValue = async () =>
  (
    await apps.readNamespacedDeployment({ namespace: ns, name: "web" })
  ).spec?.template.spec?.containers[0]?.env?.find((e) => e.name === "FLAG_LIMIT")?.value;

beforeAll(async () => {
  ns = await testNamespace(kc, "op-leader");
  scope = await operatorScope(kc, "op-leader", [ns]);
  await createWorkloads(kc, ns, [{ kind: "Deployment", name: "web", labels: { app: "web" } }]);
  flags = flagClient(kc, ns);
});

afterAll(async () => {
  await Promise.all(running.map((o) => o.close()));
});

describe("leader election", () => {
  it("lets only the replica holding the Lease write, and hands over when it stops", async () => {
    const first = await startOperator(scope, { ...electing, SVC_OPERATOR_IDENTITY: "first" });
    running.push(first);
    const second = await startOperator(
      scope,
      { ...electing, SVC_OPERATOR_IDENTITY: "second" },
      { waitUntilLeading: false },
    );
    running.push(second);
    await flags.create("limit", {
      type: "integer",
      defaultValue: "3",
      delivery: { envVar: { selector: { matchLabels: { app: "web" } } } },
    });
    await eventually(flagValue, (v) => v === "3", "FLAG_LIMIT=3 from the leader");
    await first.idle();
    expect(second.writes()).toBe(0);

    await first.close();
    await second.ready;
    await flags.patchSpec("limit", { defaultValue: "4" });
    await eventually(flagValue, (v) => v === "4", "FLAG_LIMIT=4 from the new leader");
    expect(second.writes()).toBeGreaterThan(0);
  });
});
