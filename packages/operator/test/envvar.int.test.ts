// envVar delivery end to end on a real control plane (kube-controller-manager runs): the
// variable reaches exactly the matching workloads of all three kinds, a value change rolls a
// Deployment, toggling off removes it, deleting the flag leaves each workload as before.
import {
  AppsV1Api,
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type V1PodTemplateSpec,
} from "@kubernetes/client-node";
import { FLAGS_HASH_ANNOTATION, MANAGED_ENV_ANNOTATION } from "@svc/core";
import type { RunningOperator } from "../src/index.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, testKubeConfig, testNamespace } from "../../../test/support/kube.ts";
import { createWorkloads, flagClient, operatorScope, startOperator } from "./support/operator.ts";

const kc = testKubeConfig();
const apps = kc.makeApiClient(AppsV1Api);
const core = kc.makeApiClient(CoreV1Api);
let ns: string;
let operator: RunningOperator;
let flags: ReturnType<typeof flagClient>;

const MATCHING = [
  { kind: "Deployment", name: "dep-own" },
  { kind: "StatefulSet", name: "sts-template" },
  { kind: "DaemonSet", name: "ds-both" },
] as const;

async function read(kind: "Deployment" | "StatefulSet" | "DaemonSet", name: string) {
  if (kind === "Deployment") return apps.readNamespacedDeployment({ namespace: ns, name });
  if (kind === "StatefulSet") return apps.readNamespacedStatefulSet({ namespace: ns, name });
  return apps.readNamespacedDaemonSet({ namespace: ns, name });
}

/** The value of `variable` in each container and init container of the pod template. */
function envByContainer(template: V1PodTemplateSpec | undefined, variable: string) {
  const spec = template?.spec;
  const of = (c: {
    name: string;
    env?: { name: string; value?: string }[];
  }): [string, string | undefined] => [c.name, c.env?.find((e) => e.name === variable)?.value];
  return {
    containers: Object.fromEntries<string | undefined>((spec?.containers ?? []).map(of)),
    init: Object.fromEntries<string | undefined>((spec?.initContainers ?? []).map(of)),
  };
}

/** The pod template and the svc.io annotations of the workload: what svc may change. */
function svcView(object: {
  metadata?: { annotations?: Record<string, string> };
  spec?: { template?: unknown };
}) {
  const annotations = Object.entries(object.metadata?.annotations ?? {}).filter(([k]) =>
    k.startsWith("svc.io/"),
  );
  return JSON.parse(
    JSON.stringify({ template: object.spec?.template, annotations: Object.fromEntries(annotations) }),
  ) as unknown;
}

const replicaSets = async (app: string) =>
  (await apps.listNamespacedReplicaSet({ namespace: ns, labelSelector: `app=${app}` })).items;

let before: Map<string, unknown>;

beforeAll(async () => {
  ns = await testNamespace(kc, "op-env");
  const scope = await operatorScope(kc, "op-env", [ns]);
  await createWorkloads(kc, ns, [
    { kind: "Deployment", name: "dep-own", labels: { team: "a" } },
    { kind: "StatefulSet", name: "sts-template", labels: {}, podLabels: { team: "a" } },
    { kind: "DaemonSet", name: "ds-both", labels: { team: "a" }, podLabels: { team: "a" } },
    { kind: "Deployment", name: "dep-other", labels: { team: "b" } },
  ]);
  before = new Map();
  for (const { kind, name } of [...MATCHING, { kind: "Deployment" as const, name: "dep-other" }]) {
    const object = await read(kind, name);
    before.set(name, svcView(object));
  }
  flags = flagClient(kc, ns);
  operator = await startOperator(scope);
});

afterAll(async () => {
  await operator.close();
});

describe("envVar delivery", () => {
  it("sets the variable in every container of exactly the matching workloads, with the hash on workload and pod template", async () => {
    await flags.create("checkout", {
      type: "boolean",
      defaultValue: "true",
      delivery: { envVar: { selector: { matchLabels: { team: "a" } } } },
    });
    for (const { kind, name } of MATCHING) {
      const object = await eventually(
        () => read(kind, name),
        (o) => envByContainer(o.spec?.template, "FLAG_CHECKOUT").containers["main"] === "true",
        `FLAG_CHECKOUT in ${kind} ${name}`,
      );
      expect(envByContainer(object.spec?.template, "FLAG_CHECKOUT")).toEqual({
        containers: { main: "true", helper: "true" },
        init: { setup: undefined },
      });
      const hash = object.metadata?.annotations?.[FLAGS_HASH_ANNOTATION];
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      expect(object.spec?.template.metadata?.annotations?.[FLAGS_HASH_ANNOTATION]).toBe(hash);
      expect(object.metadata?.annotations?.[MANAGED_ENV_ANNOTATION]).toBe("FLAG_CHECKOUT");
      // The user's own variable is kept.
      expect(envByContainer(object.spec?.template, "MODE").containers["main"]).toBe("fast");
    }
    const status = await eventually(
      () => flags.get("checkout"),
      (f) => f.status?.phase === "Delivered",
      "flag checkout Delivered",
    );
    expect(status.status?.targets?.map((t) => `${t.kind}/${t.name}:${t.outcome ?? ""}`)).toEqual([
      "Deployment/dep-own:delivered",
      "StatefulSet/sts-template:delivered",
      "DaemonSet/ds-both:delivered",
    ]);
    expect(status.metadata.finalizers).toContain("svc.io/delivery");
    const events = await eventually(
      async () =>
        (await core.listNamespacedEvent({ namespace: ns, fieldSelector: "involvedObject.name=checkout" }))
          .items,
      (items) => items.some((e) => e.reason === "Delivered"),
      "the Delivered event on the flag",
    );
    expect(events.find((e) => e.reason === "Delivered")?.involvedObject.kind).toBe("FeatureFlag");
    await operator.idle();
    const other = await read("Deployment", "dep-other");
    expect(svcView(other)).toEqual(before.get("dep-other"));
  });

  it("rolls a Deployment to a new ReplicaSet when the value changes", async () => {
    await eventually(
      () => replicaSets("dep-own"),
      (sets) => sets.length === 2,
      "the ReplicaSet with the flag",
    );
    const hashBefore = (await read("Deployment", "dep-own")).metadata?.annotations?.[FLAGS_HASH_ANNOTATION];
    await flags.patchSpec("checkout", { defaultValue: "false" });
    const changed = await eventually(
      () => read("Deployment", "dep-own"),
      (o) => envByContainer(o.spec?.template, "FLAG_CHECKOUT").containers["main"] === "false",
      "FLAG_CHECKOUT=false",
    );
    expect(changed.metadata?.annotations?.[FLAGS_HASH_ANNOTATION]).not.toBe(hashBefore);
    const sets = await eventually(
      () => replicaSets("dep-own"),
      (s) => s.length === 3,
      "a third ReplicaSet",
    );
    const newest = sets.find(
      (s) =>
        s.spec?.template?.metadata?.annotations?.[FLAGS_HASH_ANNOTATION] ===
        changed.metadata?.annotations?.[FLAGS_HASH_ANNOTATION],
    );
    expect(envByContainer(newest?.spec?.template, "FLAG_CHECKOUT").containers["main"]).toBe("false");
  });

  it("removes the variable and the hash when the flag is toggled off", async () => {
    await flags.patchSpec("checkout", { enabled: false });
    for (const { kind, name } of MATCHING) {
      const object = await eventually(
        () => read(kind, name),
        (o) => envByContainer(o.spec?.template, "FLAG_CHECKOUT").containers["main"] === undefined,
        `FLAG_CHECKOUT gone from ${kind} ${name}`,
      );
      expect(envByContainer(object.spec?.template, "FLAG_CHECKOUT").containers).toEqual({
        main: undefined,
        helper: undefined,
      });
      expect(object.metadata?.annotations?.[FLAGS_HASH_ANNOTATION]).toBeUndefined();
    }
    await eventually(
      () => flags.get("checkout"),
      (f) => f.status?.phase === "Delivered",
      "withdrawn everywhere",
    );
  });

  it("leaves each workload as before it matched when the flag is deleted", async () => {
    await flags.patchSpec("checkout", { enabled: true, defaultValue: "true" });
    await eventually(
      () => read("Deployment", "dep-own"),
      (o) => envByContainer(o.spec?.template, "FLAG_CHECKOUT").containers["main"] === "true",
      "delivered again",
    );
    await flags.remove("checkout");
    await eventually(
      async () => (await flags.list()).length,
      (n) => n === 0,
      "the flag gone (finalizer removed)",
    );
    for (const { kind, name } of MATCHING) {
      const object = await read(kind, name);
      expect(svcView(object), `${kind} ${name}`).toEqual(before.get(name));
    }
  });
});

describe("a workload's labels and a flag's value over time", () => {
  it("gives the flag to a workload that starts to match, and takes it from one that stops", async () => {
    await flags.create("audit-trail", {
      type: "boolean",
      defaultValue: "true",
      delivery: { envVar: { selector: { matchLabels: { audit: "on" } } } },
    });
    const relabel = (value: string | null) =>
      apps.patchNamespacedDeployment(
        { namespace: ns, name: "dep-other", body: { metadata: { labels: { audit: value } } } },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
    await relabel("on");
    await eventually(
      () => read("Deployment", "dep-other"),
      (o) => envByContainer(o.spec?.template, "FLAG_AUDIT_TRAIL").containers["main"] === "true",
      "FLAG_AUDIT_TRAIL on the relabelled workload",
    );
    await relabel(null);
    const after = await eventually(
      () => read("Deployment", "dep-other"),
      (o) => envByContainer(o.spec?.template, "FLAG_AUDIT_TRAIL").containers["main"] === undefined,
      "FLAG_AUDIT_TRAIL gone once it no longer matches",
    );
    expect(svcView(after)).toEqual(before.get("dep-other"));
    await eventually(
      () => flags.get("audit-trail"),
      (f) => f.status?.phase === "NoTargets",
      "audit-trail NoTargets",
    );
  });

  it("reports a json value that is not JSON (written with kubectl) and delivers nothing", async () => {
    await flags.create("bad-json", {
      type: "json",
      defaultValue: "{not json",
      delivery: { envVar: { selector: { matchLabels: { team: "a" } } } },
    });
    const flag = await eventually(
      () => flags.get("bad-json"),
      (f) => f.status?.phase === "Degraded",
      "bad-json Degraded",
    );
    expect(flag.status?.targets?.map((t) => t.outcome)).toEqual(["invalid", "invalid", "invalid"]);
    await operator.idle();
    expect(
      envByContainer((await read("Deployment", "dep-own")).spec?.template, "FLAG_BAD_JSON").containers,
    ).toEqual({
      main: undefined,
      helper: undefined,
    });
  });

  it("counts reconciles, writes and deliveries in its metrics", async () => {
    const text = await (await fetch(`${operator.metricsUrl}/metrics`)).text();
    expect(text).toMatch(
      /svc_operator_reconciles_total\{cluster="local",kind="Deployment",outcome="success"\} [1-9]/,
    );
    expect(text).toMatch(/svc_operator_writes_total\{cluster="local",verb="apply",kind="Deployment"\} [1-9]/);
    expect(text).toMatch(
      /svc_operator_workload_deliveries_total\{cluster="local",kind="StatefulSet",restarts="true"\} [1-9]/,
    );
    expect(text).toMatch(/svc_operator_queue_depth \d+/);
    expect(text).toMatch(/svc_operator_cluster_phase\{cluster="local",phase="Connected"\} 1/);
    expect((await fetch(`${operator.metricsUrl}/readyz`)).status).toBe(200);
  });
});
