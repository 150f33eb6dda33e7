// configMap delivery end to end: the key is created and updated in a ConfigMap labelled as
// managed and owned by the flag; matching workloads get it mounted once, and value changes
// never touch the pod template again; disabling removes the key.
import { AppsV1Api, CoreV1Api, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import type { RunningOperator } from "../src/index.ts";
import { createWorkloads, flagClient, operatorScope, startOperator } from "./support/operator.ts";

const kc = testKubeConfig();
const apps = kc.makeApiClient(AppsV1Api);
const core = kc.makeApiClient(CoreV1Api);
let ns: string;
let operator: RunningOperator;
let scope: Awaited<ReturnType<typeof operatorScope>>;
let flags: ReturnType<typeof flagClient>;

const configMap = (name: string) => core.readNamespacedConfigMap({ namespace: ns, name });
const deployment = () => apps.readNamespacedDeployment({ namespace: ns, name: "web" });

beforeAll(async () => {
  ns = await testNamespace(kc, "op-cm");
  scope = await operatorScope(kc, "op-cm", [ns]);
  await createWorkloads(kc, ns, [{ kind: "Deployment", name: "web", labels: { tier: "web" } }]);
  flags = flagClient(kc, ns);
  operator = await startOperator(scope);
});

afterAll(async () => {
  await operator.close();
});

describe("configMap delivery", () => {
  it("creates the key in a managed ConfigMap owned by the flag, and mounts it read-only once", async () => {
    await flags.create("theme", {
      type: "string",
      defaultValue: "dark",
      delivery: {
        configMap: { configMapName: "ui-flags", key: "theme", selector: { matchLabels: { tier: "web" } } },
      },
    });
    const created = await eventually(
      () => configMap("ui-flags").catch(() => undefined),
      (cm) => cm?.data?.["theme"] === "dark",
      "ConfigMap ui-flags with theme=dark",
    );
    const flag = await flags.get("theme");
    expect(created?.metadata?.labels?.["app.kubernetes.io/managed-by"]).toBe("svc");
    expect(created?.metadata?.ownerReferences?.map((o) => `${o.kind}/${o.name}`)).toEqual([
      "FeatureFlag/theme",
    ]);
    expect(created?.metadata?.ownerReferences?.[0]?.uid).toBe(flag.metadata.uid);
    const mounted = await eventually(
      deployment,
      (d) => (d.spec?.template.spec?.volumes ?? []).some((v) => v.configMap?.name === "ui-flags"),
      "the ConfigMap volume",
    );
    for (const container of mounted.spec?.template.spec?.containers ?? []) {
      expect(container.volumeMounts, container.name).toEqual([
        { name: "svc-flags-ui-flags", mountPath: "/etc/svc-flags/ui-flags", readOnly: true },
      ]);
    }
    expect(mounted.spec?.template.spec?.initContainers?.[0]?.volumeMounts).toBeUndefined();
    await eventually(
      () => flags.get("theme"),
      (f) => f.status?.phase === "Delivered",
      "flag theme Delivered",
    );
  });

  it("updates the key without touching the pod template", async () => {
    await operator.idle();
    const before = await deployment();
    await flags.patchSpec("theme", { defaultValue: "light" });
    await eventually(
      () => configMap("ui-flags"),
      (cm) => cm.data?.["theme"] === "light",
      "theme=light",
    );
    await operator.idle();
    const after = await deployment();
    expect(after.metadata?.generation).toBe(before.metadata?.generation);
    expect(after.spec?.template).toEqual(before.spec?.template);
  });

  it("removes the key when the flag is disabled, and keeps the mount (no restart)", async () => {
    const before = await deployment();
    await flags.patchSpec("theme", { enabled: false });
    await eventually(
      () => configMap("ui-flags"),
      (cm) => cm.data?.["theme"] === undefined,
      "theme removed",
    );
    await operator.idle();
    expect((await deployment()).metadata?.generation).toBe(before.metadata?.generation);
  });

  it("withdraws from a ConfigMap the flag moved away from while the operator was stopped", async () => {
    await flags.create("banner", {
      type: "string",
      defaultValue: "hello",
      delivery: {
        configMap: { configMapName: "old-flags", key: "banner", selector: { matchLabels: { tier: "web" } } },
      },
    });
    await eventually(
      () => configMap("old-flags").catch(() => undefined),
      (cm) => cm?.data?.["banner"] === "hello",
      "banner in old-flags",
    );
    // A key of someone else's in the same ConfigMap: svc must keep it and remove only its own.
    await core.patchNamespacedConfigMap(
      { namespace: ns, name: "old-flags", body: { data: { "set-by-hand": "yes" } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    await operator.idle();
    await operator.close();
    await flags.patchSpec("banner", {
      delivery: {
        configMap: { configMapName: "new-flags", key: "banner", selector: { matchLabels: { tier: "web" } } },
      },
    });
    // A new operator remembers nothing: what it finds in the cluster must be enough.
    operator = await startOperator(scope);
    await eventually(
      () => configMap("new-flags").catch(() => undefined),
      (cm) => cm?.data?.["banner"] === "hello",
      "banner in new-flags",
    );
    const old = await eventually(
      () => configMap("old-flags"),
      (cm) => cm.data?.["banner"] === undefined,
      "banner withdrawn from old-flags",
    );
    expect(old.data).toEqual({ "set-by-hand": "yes" });
    expect(old.metadata?.ownerReferences ?? []).toEqual([]);
  });
});
