// Level-triggered and idempotent: an operator restarted with nothing changed writes nothing
// (every workload, ConfigMap and flag keeps its resourceVersion), and changes made while it
// was stopped are applied when it returns.
import { AppsV1Api, CoreV1Api } from "@kubernetes/client-node";
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
const core = kc.makeApiClient(CoreV1Api);
let ns: string;
let scope: OperatorScope;
let operator: RunningOperator | undefined;
let flags: ReturnType<typeof flagClient>;

/** resourceVersion of every workload, ConfigMap and FeatureFlag of the namespace. */
async function versions(): Promise<Record<string, string>> {
  const entries: [string, string][] = [];
  const add = (kind: string, items: { metadata?: { name?: string; resourceVersion?: string } }[]) => {
    for (const item of items)
      entries.push([`${kind}/${item.metadata?.name ?? ""}`, item.metadata?.resourceVersion ?? ""]);
  };
  add("Deployment", (await apps.listNamespacedDeployment({ namespace: ns })).items);
  add("StatefulSet", (await apps.listNamespacedStatefulSet({ namespace: ns })).items);
  add("DaemonSet", (await apps.listNamespacedDaemonSet({ namespace: ns })).items);
  add("ConfigMap", (await core.listNamespacedConfigMap({ namespace: ns })).items);
  add("FeatureFlag", await flags.list());
  return Object.fromEntries(entries.sort());
}

beforeAll(async () => {
  ns = await testNamespace(kc, "op-restart");
  scope = await operatorScope(kc, "op-restart", [ns]);
  await createWorkloads(kc, ns, [
    { kind: "Deployment", name: "web", labels: { app: "shop" } },
    { kind: "StatefulSet", name: "db", labels: { app: "shop" } },
    { kind: "DaemonSet", name: "agent", labels: { app: "shop" } },
  ]);
  flags = flagClient(kc, ns);
  await flags.create("fast-path", {
    type: "boolean",
    defaultValue: "true",
    delivery: { envVar: { selector: { matchLabels: { app: "shop" } } } },
  });
  await flags.create("banner", {
    type: "string",
    defaultValue: "hello",
    delivery: {
      configMap: { configMapName: "shop-flags", key: "banner", selector: { matchLabels: { app: "shop" } } },
    },
  });
  operator = await startOperator(scope);
  for (const name of ["fast-path", "banner"])
    await eventually(
      () => flags.get(name),
      (f) => f.status?.phase === "Delivered",
      `${name} Delivered`,
    );
  await operator.idle();
});

afterAll(async () => {
  await operator?.close();
});

describe("operator restart", () => {
  it("writes nothing when nothing changed", async () => {
    await operator?.close();
    const before = await versions();
    expect(Object.keys(before)).toEqual(
      expect.arrayContaining([
        "Deployment/web",
        "StatefulSet/db",
        "DaemonSet/agent",
        "ConfigMap/shop-flags",
        "FeatureFlag/fast-path",
        "FeatureFlag/banner",
      ]),
    );
    operator = await startOperator(scope);
    await operator.idle();
    expect(operator.writes()).toBe(0);
    expect(await versions()).toEqual(before);
  });

  it("applies changes made while it was stopped when it returns", async () => {
    await operator?.close();
    await flags.patchSpec("fast-path", { defaultValue: "false" });
    await flags.patchSpec("banner", { defaultValue: "bye" });
    operator = await startOperator(scope);
    await eventually(
      () => apps.readNamespacedStatefulSet({ namespace: ns, name: "db" }),
      (s) =>
        s.spec?.template.spec?.containers[0]?.env?.find((e) => e.name === "FLAG_FAST_PATH")?.value ===
        "false",
      "FLAG_FAST_PATH=false in db",
    );
    await eventually(
      () => core.readNamespacedConfigMap({ namespace: ns, name: "shop-flags" }),
      (cm) => cm.data?.["banner"] === "bye",
      "banner=bye",
    );
  });
});
