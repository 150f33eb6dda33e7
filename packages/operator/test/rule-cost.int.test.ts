// Issue 37, "rules bounded as evaluated": a FeatureFlag whose rules exceed what a rule may cost,
// written with the Kubernetes client as kubectl or GitOps would (the API never sees it), is
// marked Degraded with the bound in its status and never evaluated; the operator keeps
// delivering every other flag. On a real control plane.
import { AppsV1Api } from "@kubernetes/client-node";
import type { RunningOperator } from "../src/index.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import { overBoundRules } from "../../../test/support/hostile-targeting.ts";
import { createWorkloads, flagClient, operatorScope, startOperator } from "./support/operator.ts";

const kc = testKubeConfig();
const apps = kc.makeApiClient(AppsV1Api);
let ns: string;
let operator: RunningOperator;
let flags: ReturnType<typeof flagClient>;

beforeAll(async () => {
  ns = await testNamespace(kc, "op-rule-cost");
  const scope = await operatorScope(kc, "op-rule-cost", [ns]);
  await createWorkloads(kc, ns, [{ kind: "Deployment", name: "web", labels: { app: "web" } }]);
  flags = flagClient(kc, ns);
  operator = await startOperator(scope);
});

afterAll(async () => {
  await operator.close();
});

const targeted = (name: string, rules: object) => ({
  type: "boolean",
  defaultValue: "false",
  variants: { on: "true", off: "false" },
  defaultVariant: "off",
  targeting: { if: [{ "==": [{ var: "namespace" }, ns] }, "on", "off"] },
  ...rules,
  delivery: { envVar: { name, selector: { matchLabels: { app: "web" } } } },
});

async function webEnv(): Promise<Record<string, string | undefined>> {
  const web = await apps.readNamespacedDeployment({ namespace: ns, name: "web" });
  const main = web.spec?.template.spec?.containers.find((c) => c.name === "main");
  return Object.fromEntries((main?.env ?? []).map((e) => [e.name, e.value]));
}

describe("over-bound rules applied with kubectl", () => {
  it.each(overBoundRules)(
    "%s: Degraded with the bound in its status, and the operator keeps delivering other flags",
    async (why, rules) => {
      const name = why.replace(/[^a-z0-9]+/g, "-").replace(/-$/, "");
      const variable = `FLAG_${name.toUpperCase().replaceAll("-", "_")}`;
      await flags.create(name, targeted(variable, rules));
      const flag = await eventually(
        () => flags.get(name),
        (f) => f.status?.phase === "Degraded",
        `${name} Degraded`,
        30_000,
      );
      const status = JSON.stringify(flag.status);
      expect(status).toMatch(/targeting .*more than the [\d,]+ allowed; the flag is not delivered/);
      // Still serving: a flag written afterwards is delivered, and the over-bound one is not.
      const after = `after-${name}`.slice(0, 60);
      await flags.create(after, targeted(`FLAG_AFTER_${variable.slice(5)}`, {}));
      await eventually(
        () => flags.get(after),
        (f) => f.status?.phase === "Delivered",
        `${after} Delivered`,
        30_000,
      );
      await operator.idle();
      const env = await webEnv();
      expect(env[`FLAG_AFTER_${variable.slice(5)}`]).toBe("true");
      expect(env[variable]).toBeUndefined();
    },
  );

  it("a delivered flag changed to an over-bound rule: Degraded with the reason, evaluated no more", async () => {
    await flags.create("was-good", targeted("FLAG_WAS_GOOD", {}));
    await eventually(
      () => flags.get("was-good"),
      (f) => f.status?.phase === "Delivered",
      "was-good Delivered",
      30_000,
    );
    const [, chain] = overBoundRules[2] ?? [];
    await flags.patchSpec("was-good", { ...chain });
    const flag = await eventually(
      () => flags.get("was-good"),
      (f) => f.status?.phase === "Degraded",
      "was-good Degraded",
      30_000,
    );
    expect(JSON.stringify(flag.status)).toContain("expand ($ref) to");
  });
});
