// FlagRollouts on the real node (issue 23's acceptance): the demo app's pods run in the hub,
// wave 0; a second control plane is wave 1. A value that makes the app crash at start halts
// the plan in wave 0, rolls it back (pods healthy again, on the old value) and never touches
// wave 1's cluster; a good value goes through both waves. Each plan survives its operator being
// killed (SIGKILL, no hand-over) once mid-plan: the next one resumes from the plan's status.
// Two more Deployments (shop-a, shop-b) take waves over half their workloads first
// (workloadPercent): shop-a is the canary, and shop-b is left alone until it passed.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import {
  API_GROUP,
  API_GROUP_VERSION,
  DEFAULT_SIDECAR_PORT,
  FLAG_ROLLOUT,
  type FeatureFlagResource,
  type FlagRolloutResource,
  type FlagRolloutSpec,
} from "@svc/core";
import { installCrds } from "@svc/kube";
import { registerControlPlane, startLocalControlPlane, type LocalControlPlane } from "@svc/localkube";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import {
  flagClient,
  operatorScope,
  type OperatorScope,
} from "../../packages/operator/test/support/operator.ts";
import { eventually, testKubeConfig, testNamespace } from "../support/kube.ts";
import {
  demoPodTemplate,
  describeOnNode,
  readyPods,
  rolledOut,
  seenFlags,
  sidecarValue,
} from "../support/node.ts";

const hub = testKubeConfig();
let remote: LocalControlPlane | undefined;
let remoteKc: KubeConfig;
let ns = "";
let scope: OperatorScope;
let operator: ChildProcess | undefined;

const custom = hub.makeApiClient(CustomObjectsApi);
const rollouts = () => ({
  group: API_GROUP,
  version: "v1alpha1",
  namespace: scope.systemNamespace,
  plural: FLAG_ROLLOUT.plural,
});
const selector = { matchLabels: { app: "web" } };
const shop = { matchLabels: { tier: "shop" } };
const SHOP = ["shop-a", "shop-b"] as const;

/** The operator as its own process (the CLI's `svc operator`), so that it can be killed for real. */
function startOperatorProcess(): ChildProcess {
  const child = spawn(
    process.execPath,
    [join(import.meta.dirname, "../../packages/cli/src/main.ts"), "operator"],
    {
      env: {
        ...process.env,
        KUBECONFIG: inject("kubeconfigPath"),
        SVC_NAMESPACE: scope.systemNamespace,
        SVC_OPERATOR_LEADER_ELECTION: "false",
        SVC_OPERATOR_METRICS_PORT: "0",
        SVC_OPERATOR_METRICS_HOST: "127.0.0.1",
        SVC_LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  return child;
}

async function killOperator(): Promise<void> {
  const child = operator;
  operator = undefined;
  if (child === undefined || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

const readPlan = async (name: string) =>
  (await custom.getNamespacedCustomObject({ ...rollouts(), name })) as FlagRolloutResource;

async function createPlan(name: string, spec: FlagRolloutSpec): Promise<void> {
  await custom.createNamespacedCustomObject({
    ...rollouts(),
    body: { apiVersion: API_GROUP_VERSION, kind: FLAG_ROLLOUT.kind, metadata: { name }, spec },
  });
}

/** Waits for the plan to reach `done`, killing the operator once when `killWhen` first holds. */
async function follow(
  name: string,
  killWhen: (plan: FlagRolloutResource) => boolean,
  done: (plan: FlagRolloutResource) => boolean,
): Promise<FlagRolloutResource> {
  await eventually(() => readPlan(name), killWhen, `plan ${name} mid-way`, 180_000);
  await killOperator();
  operator = startOperatorProcess();
  return eventually(() => readPlan(name), done, `plan ${name} finished`, 240_000);
}

const remoteFlag = async (name: string) =>
  (await remoteKc.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
    group: API_GROUP,
    version: "v1alpha1",
    namespace: ns,
    plural: "featureflags",
    name,
  })) as FeatureFlagResource;

describeOnNode("FlagRollouts on a real node, across two clusters", () => {
  beforeAll(async () => {
    [remote, ns] = await Promise.all([startLocalControlPlane(), testNamespace(hub, "node-rollout")]);
    remoteKc = remote.kubeConfig();
    scope = await operatorScope(hub, "node-rollout", [ns]);
    await remoteKc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: ns } } });
    await installCrds(remoteKc);
    await registerControlPlane(hub, remote, {
      id: "east",
      systemNamespace: scope.systemNamespace,
      namespaces: [ns],
    });
    // The flags exist in both clusters; only the hub runs the app (east has no node).
    for (const kc of [hub, remoteKc]) {
      const flags = flagClient(kc, ns);
      await flags.create("crash-on-start", {
        type: "boolean",
        defaultValue: "false",
        delivery: { envVar: { selector } },
      });
      await flags.create("greeting", {
        type: "string",
        defaultValue: "hello",
        delivery: { envVar: { selector } },
      });
    }
    const shopFlags = flagClient(hub, ns);
    await shopFlags.create("shop-crash", {
      type: "boolean",
      defaultValue: "false",
      delivery: { envVar: { selector: shop, name: "FLAG_CRASH_ON_START" } },
    });
    await shopFlags.create("shop-greeting", {
      type: "string",
      defaultValue: "hello",
      delivery: { sidecar: { selector: shop } },
    });
    const apps = hub.makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: { metadata: { name: "web" }, spec: { replicas: 2, selector, template: demoPodTemplate("web") } },
    });
    for (const name of SHOP) {
      // The demo app reads the sidecar on the port this names (the flag's default, 8514).
      const template = demoPodTemplate(name, [
        { name: "SVC_SIDECAR_PORT", value: String(DEFAULT_SIDECAR_PORT) },
      ]);
      await apps.createNamespacedDeployment({
        namespace: ns,
        body: {
          metadata: { name, labels: { tier: "shop" } },
          spec: {
            replicas: 1,
            selector: { matchLabels: { app: name } },
            template: { ...template, metadata: { labels: { app: name, tier: "shop" } } },
          },
        },
      });
    }
    operator = startOperatorProcess();
    await eventually(
      async () =>
        (await seenFlags(hub, ns, (await readyPods(hub, ns, "web", 2, 180_000))[0]?.metadata?.name ?? ""))
          .env,
      (env) => env["FLAG_CRASH_ON_START"] === "false" && env["FLAG_GREETING"] === "hello",
      "the app running with both flags delivered",
      180_000,
    );
    await rolledOut(hub, ns, "web", 120_000);
    for (const name of SHOP) {
      await eventually(
        async () =>
          await seenFlags(hub, ns, (await readyPods(hub, ns, name, 1, 180_000))[0]?.metadata?.name ?? ""),
        (seen) =>
          seen.env["FLAG_CRASH_ON_START"] === "false" &&
          sidecarValue(seen.sidecar, "shop-greeting") === "hello",
        `${name} running with both shop flags delivered`,
        180_000,
      );
      await rolledOut(hub, ns, name, 120_000);
    }
  }, 480_000);

  afterAll(async () => {
    await killOperator();
    await remote?.stop();
  });

  it("halts a value that crashes the app in wave 0, rolls it back, and leaves wave 1 untouched", async () => {
    const eastBefore = (await remoteFlag("crash-on-start")).metadata.resourceVersion;
    await createPlan("crash", {
      flag: { namespace: ns, name: "crash-on-start" },
      change: { defaultValue: "true" },
      waves: [
        { clusters: ["local"], bakeSeconds: 60 },
        { clusters: ["east"], bakeSeconds: 0 },
      ],
    });
    const plan = await follow(
      "crash",
      (p) => p.status?.waves?.[0]?.phase === "Applying" || p.status?.waves?.[0]?.phase === "Baking",
      (p) => p.status?.phase === "RolledBack",
    );
    expect(plan.status?.message).toMatch(
      /wave 0 failed its gate: cluster local: web-[a-z0-9-]+: (CrashLoopBackOff after the change|restarted \d+ times? after the change)/,
    );
    expect(plan.status?.waves?.map((w) => w.phase)).toEqual(["RolledBack", "Pending"]);
    // Healthy again, on the old value.
    await rolledOut(hub, ns, "web", 180_000);
    const pods = await readyPods(hub, ns, "web", 2, 180_000);
    for (const pod of pods)
      expect((await seenFlags(hub, ns, pod.metadata?.name ?? "")).env["FLAG_CRASH_ON_START"]).toBe("false");
    expect((await remoteFlag("crash-on-start")).metadata.resourceVersion).toBe(eastBefore);
  });

  it("takes a good value through both waves", async () => {
    await createPlan("greeting", {
      flag: { namespace: ns, name: "greeting" },
      change: { defaultValue: "hi" },
      waves: [
        { clusters: ["local"], bakeSeconds: 5 },
        { clusters: ["east"], bakeSeconds: 0 },
      ],
    });
    const plan = await follow(
      "greeting",
      (p) => p.status?.waves?.[0]?.phase === "Baking",
      (p) => p.status?.phase === "Succeeded" || p.status?.phase === "RolledBack",
    );
    expect(plan.status?.phase).toBe("Succeeded");
    expect(plan.status?.waves?.map((w) => w.phase)).toEqual(["Succeeded", "Succeeded"]);
    const pods = await readyPods(hub, ns, "web", 2, 180_000);
    for (const pod of pods)
      expect((await seenFlags(hub, ns, pod.metadata?.name ?? "")).env["FLAG_GREETING"]).toBe("hi");
    expect((await remoteFlag("greeting")).spec.defaultValue).toBe("hi");
  });

  const shopGeneration = async (name: string) =>
    (await hub.makeApiClient(AppsV1Api).readNamespacedDeployment({ namespace: ns, name })).metadata
      ?.generation;
  const shopSeen = async (name: string) =>
    seenFlags(hub, ns, (await readyPods(hub, ns, name, 1, 180_000))[0]?.metadata?.name ?? "");

  it("changes the canary half first: a crash there halts the plan before the other half is touched", async () => {
    const untouched = await shopGeneration("shop-b");
    await createPlan("shop-crash", {
      flag: { namespace: ns, name: "shop-crash" },
      change: { defaultValue: "true" },
      waves: [{ clusters: ["local"], bakeSeconds: 30, workloadPercent: 50 }],
    });
    const plan = await eventually(
      () => readPlan("shop-crash"),
      (p) => p.status?.phase === "RolledBack" || p.status?.phase === "Succeeded",
      "plan shop-crash finished",
      240_000,
    );
    expect(plan.status?.message).toMatch(/cluster local: shop-a-[a-z0-9-]+: /);
    const cluster = plan.status?.waves?.[0]?.clusters[0];
    expect(cluster?.canary?.map((w) => w.name)).toEqual(["shop-a"]);
    expect(cluster?.workloads?.find((w) => w.name === "shop-b")?.health).toBe("Waiting");
    // shop-b's pod template never changed; shop-a runs again on the old value.
    expect(await shopGeneration("shop-b")).toBe(untouched);
    await rolledOut(hub, ns, "shop-a", 180_000);
    expect((await shopSeen("shop-a")).env["FLAG_CRASH_ON_START"]).toBe("false");
    expect((await shopSeen("shop-b")).env["FLAG_CRASH_ON_START"]).toBe("false");
  });

  it("serves a sidecar flag's change to the canary's pods only until it passed, then to all", async () => {
    const generations = await Promise.all(SHOP.map(shopGeneration));
    await createPlan("shop-greeting", {
      flag: { namespace: ns, name: "shop-greeting" },
      change: { defaultValue: "hi" },
      waves: [{ clusters: ["local"], bakeSeconds: 15, workloadPercent: 50 }],
    });
    // While the canary bakes, shop-a's sidecar serves the change and shop-b's the old value.
    await eventually(
      () => readPlan("shop-greeting"),
      (p) => p.status?.waves?.[0]?.stage === "Canary" && p.status.waves[0].phase === "Baking",
      "the canary step baking",
      120_000,
    );
    expect(sidecarValue((await shopSeen("shop-a")).sidecar, "shop-greeting")).toBe("hi");
    expect(sidecarValue((await shopSeen("shop-b")).sidecar, "shop-greeting")).toBe("hello");
    const plan = await eventually(
      () => readPlan("shop-greeting"),
      (p) => p.status?.phase === "Succeeded" || p.status?.phase === "RolledBack",
      "plan shop-greeting finished",
      120_000,
    );
    expect(plan.status?.phase).toBe("Succeeded");
    expect(plan.status?.waves?.[0]?.stage).toBe("All");
    for (const name of SHOP)
      await eventually(
        async () => sidecarValue((await shopSeen(name)).sidecar, "shop-greeting"),
        (value) => value === "hi",
        `${name}'s sidecar serving the change`,
        30_000,
      );
    // A sidecar flag's change restarts nothing, in either step.
    expect(await Promise.all(SHOP.map(shopGeneration))).toEqual(generations);
  });
});
