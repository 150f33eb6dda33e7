// The operator's steps on a FlagRollout in the audit log, recorded by the API from the plan's
// status: each step once, however many replicas see it and however often (a restart included).
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { API_GROUP, API_VERSION, FLAG_ROLLOUT, type FlagRolloutStatus } from "@svc/core";
import { beforeAll, describe, expect, it } from "vitest";
import { validFlagSpec } from "../../../test/support/flag-cases.ts";
import { eventually, testNamespace } from "../../../test/support/kube.ts";
import { RolloutStepRecorder } from "../src/rollouts/steps.ts";
import { ROLE_LOGINS, startClusterApi, type ClusterApi } from "./support/cluster-api.ts";

let env: ClusterApi;
let ns = "";

interface Row {
  actor: string;
  action: string;
  resourceName: string;
  outcome: string;
  details: { step: string; message: string; wave?: number };
}

const steps = async (): Promise<Row[]> => {
  const reply = await env.api.call("GET", "/api/v1/audit?resource=rollout&action=step&limit=100", {
    token: env.tokens.admin,
  });
  const body = reply.json as { items?: Row[] } | Row[];
  return Array.isArray(body) ? body : (body.items ?? []);
};

beforeAll(async () => {
  env = await startClusterApi("rollout-steps");
  ns = await testNamespace(env.kc, "rollout-steps");
  const flag = await env.api.call("POST", "/api/v1/flags", {
    token: env.tokens.editor,
    body: { ...validFlagSpec, name: "checkout", namespace: ns, clusterId: "local", description: "" },
  });
  if (flag.status !== 201) throw new Error(`flag: ${flag.status} ${flag.text}`);
}, 120_000);

describe("the operator's steps in the audit log", () => {
  it("records each step of a plan's status once, with every replica watching, across a restart", async () => {
    const created = await env.api.call("POST", "/api/v1/rollouts", {
      token: env.tokens.editor,
      body: {
        name: "checkout-on",
        flag: { namespace: ns, name: "checkout" },
        change: { enabled: false },
        waves: [{ clusters: ["local"], bakeSeconds: 30 }],
      },
    });
    expect(created.status, created.text).toBe(201);
    // A second replica of the API on the same database.
    const replica = new RolloutStepRecorder({
      clusters: env.registry,
      localClusterId: "local",
      systemNamespace: env.systemNamespace,
      audit: env.api.server.context.audit,
      log: env.api.server.app.log,
    });
    replica.start();
    // What the operator writes, in two stages: a wave baking, then failed and rolled back.
    const wave = {
      startedAt: "2026-11-27T10:00:00.000Z",
      bakeUntil: "2026-11-27T10:00:32.000Z",
      clusters: [{ id: "local", phase: "Baking" as const, deliveredAt: "2026-11-27T10:00:02.000Z" }],
    };
    const write = (status: FlagRolloutStatus) =>
      env.kc.makeApiClient(CustomObjectsApi).patchNamespacedCustomObjectStatus(
        {
          group: API_GROUP,
          version: API_VERSION,
          namespace: env.systemNamespace,
          plural: FLAG_ROLLOUT.plural,
          name: "checkout-on",
          body: { status },
        },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
    await write({
      phase: "Progressing",
      startedAt: wave.startedAt,
      currentWave: 0,
      waves: [{ ...wave, phase: "Baking" }],
    });
    await eventually(steps, (rows) => rows.length === 3, "three steps recorded");
    await write({
      phase: "RolledBack",
      startedAt: wave.startedAt,
      finishedAt: "2026-11-27T10:00:09.000Z",
      message:
        "wave 0 failed its gate: cluster local: web-1: CrashLoopBackOff after the change; every applied wave rolled back",
      currentWave: 0,
      waves: [
        {
          ...wave,
          phase: "RolledBack",
          finishedAt: "2026-11-27T10:00:05.000Z",
          message: "cluster local: web-1: CrashLoopBackOff after the change",
          clusters: [{ id: "local", phase: "RolledBack" }],
        },
      ],
    });
    const expected = ["Started", "WaveStarted", "Baking", "WaveFailed", "WaveRolledBack", "RolledBack"];
    const rows = await eventually(steps, (r) => r.length >= expected.length, "six steps recorded");
    await replica.settled();
    await env.api.server.rolloutSteps?.settled();
    // Newest first in the audit log.
    expect((await steps()).map((r) => r.details.step).reverse()).toEqual(expected);
    expect(rows.every((r) => r.actor === "svc-operator" && r.resourceName === "checkout-on")).toBe(true);
    expect(rows.find((r) => r.details.step === "WaveFailed")).toMatchObject({
      outcome: "failure",
      details: { wave: 0, message: "wave 0: cluster local: web-1: CrashLoopBackOff after the change" },
    });
    // A restarted API lists the plans again and records nothing twice.
    await replica.stop();
    await env.api.restart();
    env.tokens.admin = await env.api.login(...ROLE_LOGINS.admin);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await env.api.server.rolloutSteps?.settled();
    expect((await steps()).length).toBe(expected.length);
  });
});
