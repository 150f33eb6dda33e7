// Issue 37, "rules bounded as evaluated": a FeatureFlag whose rules exceed what a rule may cost,
// written with the Kubernetes client as kubectl or GitOps would, never reaches flagd-core in the
// sidecar: a flag that had a good definition keeps answering with it, one that never had answers
// OFREP's GENERAL naming the bound, and every other flag and /healthz keep answering. Against a
// real API server.
import { installCrds } from "@svc/kube";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runSidecar } from "../src/index.ts";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import { overBoundRules } from "../../../test/support/hostile-targeting.ts";
import { flagWriter, type FlagWriter } from "./support/flags-api.ts";

const kc = testKubeConfig();
let flags: FlagWriter;
let sidecar: Awaited<ReturnType<typeof runSidecar>>;

beforeAll(async () => {
  await installCrds(kc);
  const namespace = await testNamespace(kc, "sidecar-rule-cost");
  flags = flagWriter(kc, namespace);
  sidecar = await runSidecar({
    namespace,
    port: 0,
    host: "127.0.0.1",
    remoteReads: false,
    kubeconfigPath: inject("kubeconfigPath"),
    heartbeatMs: 1000,
    logLevel: "silent",
    log: pino({ level: "silent" }),
  });
  await sidecar.ready;
});

afterAll(async () => {
  await sidecar.close();
});

async function evaluate(key: string, context: Record<string, unknown>) {
  const response = await fetch(`${sidecar.url}/ofrep/v1/evaluate/flags/${key}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ context }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const variants = { variants: { on: "true", off: "false" }, defaultVariant: "off" };
const good = { ...variants, targeting: { if: [{ in: [{ var: "tenant" }, ["acme"]] }, "on", "off"] } };

/** Waits until the sidecar has seen every watch event before a marker flag's (events come in order). */
async function caughtUp(marker: string): Promise<void> {
  await flags.create(marker, "boolean", "true");
  await eventually(
    () => fetch(`${sidecar.url}/flags/${marker}`).then((r) => r.status),
    (status) => status === 200,
    `marker ${marker} served`,
  );
}

describe("over-bound rules applied with kubectl, in the sidecar", () => {
  it.each(overBoundRules)(
    "%s: the last good definition keeps answering; a new flag answers GENERAL; the rest keep serving",
    async (why, rules) => {
      const name = why.replace(/[^a-z0-9]+/g, "-").replace(/-$/, "");
      await flags.createWith(`kept-${name}`, "boolean", "false", good);
      await eventually(
        () => evaluate(`kept-${name}`, { tenant: "acme" }),
        (answer) => answer.body["value"] === true,
        `kept-${name} evaluated`,
      );
      // Evaluators first: each patch is a definition the sidecar sees, and evaluators alone are
      // already over the bound (flagd-core expands every one), where targeting alone would
      // name evaluators that are not there yet.
      if (rules.evaluators !== undefined) await flags.setSpec(`kept-${name}`, "evaluators", rules.evaluators);
      await flags.setSpec(`kept-${name}`, "targeting", rules.targeting);
      await flags.createWith(`new-${name}`, "boolean", "false", { ...variants, ...rules });
      await caughtUp(`marker-${name}`);

      expect(await evaluate(`kept-${name}`, { tenant: "acme" })).toMatchObject({
        status: 200,
        body: { value: true, variant: "on", reason: "TARGETING_MATCH" },
      });
      const refused = await evaluate(`new-${name}`, { tenant: "acme" });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ key: `new-${name}`, errorCode: "GENERAL" });
      expect(refused.body["errorDetails"]).toMatch(/^targeting .*more than the [\d,]+ allowed/);
      expect((await fetch(`${sidecar.url}/healthz`)).status).toBe(200);
      expect(await evaluate(`marker-${name}`, {})).toMatchObject({ status: 200, body: { value: true } });
    },
  );
});
