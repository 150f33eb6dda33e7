// Delivery seen from inside running pods, on the real node: the demo application (deploy/demo-app)
// reports the flags its process sees, and the operator runs in this process. envVar through a
// rolling update that replaces the pods; configMap through a mounted file that changes without a
// restart; the native sidecar serving the app on localhost with nothing but the pod's
// ServiceAccount and the RBAC the operator made.
import { ApiException, AppsV1Api, CoreV1Api, type V1Pod } from "@kubernetes/client-node";
import { SIDECAR_CONTAINER_NAME } from "@svc/core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { flagClient, operatorScope, startOperator } from "../../packages/operator/test/support/operator.ts";
import type { RunningOperator } from "../../packages/operator/src/index.ts";
import { eventually, testKubeConfig, testNamespace } from "../support/kube.ts";
import {
  demoPodTemplate,
  describeOnNode,
  getFromPod,
  readyPods,
  rolledOut,
  seenFlags,
  sidecarValue,
} from "../support/node.ts";

const kc = testKubeConfig();
const apps = kc.makeApiClient(AppsV1Api);
const core = kc.makeApiClient(CoreV1Api);
let ns = "";
let operator: RunningOperator | undefined;
let flags: ReturnType<typeof flagClient>;

const names = (pods: V1Pod[]) => pods.map((p) => p.metadata?.name ?? "").sort();
const selector = (app: string) => ({ matchLabels: { app } });

describeOnNode("flags seen by running pods on a real node", () => {
  beforeAll(async () => {
    ns = await testNamespace(kc, "node");
    const scope = await operatorScope(kc, "node", [ns]);
    flags = flagClient(kc, ns);
    operator = await startOperator(scope);
  });

  afterAll(async () => {
    await operator?.close();
  });

  it("envVar: the process sees the value; a change rolls new pods that see it; off removes it", async () => {
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: "env-app" },
        spec: { replicas: 2, selector: selector("env-app"), template: demoPodTemplate("env-app") },
      },
    });
    await flags.create("checkout", {
      type: "string",
      defaultValue: "blue",
      delivery: { envVar: { selector: selector("env-app") } },
    });
    const seen = async (want: string | undefined, previous: string[]) => {
      const pods = await eventually(
        () => readyPods(kc, ns, "env-app", 2),
        (ready) => names(ready).every((name) => !previous.includes(name)),
        "pods of the new template",
        120_000,
      );
      await rolledOut(kc, ns, "env-app");
      for (const pod of pods)
        expect((await seenFlags(kc, ns, pod.metadata?.name ?? "")).env["FLAG_CHECKOUT"]).toBe(want);
      return names(pods);
    };
    // The first pods may have started before the flag reached the template: wait for the value.
    const first = await eventually(
      async () => {
        const pods = await readyPods(kc, ns, "env-app", 2, 120_000);
        return Promise.all(
          pods.map(async (p) => (await seenFlags(kc, ns, p.metadata?.name ?? "")).env["FLAG_CHECKOUT"]),
        );
      },
      (values) => values.every((v) => v === "blue"),
      "both pods seeing FLAG_CHECKOUT=blue",
      120_000,
    );
    expect(first).toEqual(["blue", "blue"]);
    const bluePods = names(await readyPods(kc, ns, "env-app", 2));
    // The Deployment's revision: one rollout per change, no more.
    const revision = async () =>
      Number(
        (await apps.readNamespacedDeployment({ namespace: ns, name: "env-app" })).metadata?.annotations?.[
          "deployment.kubernetes.io/revision"
        ],
      );
    const blueRevision = await revision();

    await flags.patchSpec("checkout", { defaultValue: "green" });
    const greenPods = await seen("green", bluePods);
    expect(await revision()).toBe(blueRevision + 1);

    await flags.patchSpec("checkout", { enabled: false });
    await seen(undefined, greenPods);
    expect(await revision()).toBe(blueRevision + 2);
  });

  it("configMap: the mounted file holds the value and changes in the running pod, no restart", async () => {
    await apps.createNamespacedStatefulSet({
      namespace: ns,
      body: {
        metadata: { name: "cm-app" },
        spec: {
          replicas: 1,
          serviceName: "cm-app",
          selector: selector("cm-app"),
          template: demoPodTemplate("cm-app"),
        },
      },
    });
    await flags.create("banner", {
      type: "string",
      defaultValue: "hello",
      delivery: { configMap: { configMapName: "cm-flags", key: "banner", selector: selector("cm-app") } },
    });
    const file = async () => {
      const [pod] = await readyPods(kc, ns, "cm-app", 1, 120_000);
      const name = pod?.metadata?.name ?? "";
      return { pod, content: (await seenFlags(kc, ns, name)).files["cm-flags/banner"] };
    };
    const before = await eventually(
      file,
      (f) => f.content === "hello",
      "/etc/svc-flags/cm-flags/banner = hello",
      120_000,
    );

    const changed = Date.now();
    await flags.patchSpec("banner", { defaultValue: "goodbye" });
    const after = await eventually(
      file,
      (f) => f.content === "goodbye",
      "the file changed in the pod",
      120_000,
    );
    const seconds = (Date.now() - changed) / 1000;
    // The kubelet refreshes mounted ConfigMaps on its sync period (5 s on the test node).
    console.info(`configMap: the new value reached the running pod's file in ${seconds.toFixed(1)} s`);
    expect(after.pod?.metadata?.uid).toBe(before.pod?.metadata?.uid);
    expect(after.pod?.status?.containerStatuses?.[0]?.restartCount).toBe(0);
  });

  it("sidecar: starts before the app, serves it on localhost with the pod's ServiceAccount, streams changes", async () => {
    const port = 8600;
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: "sc-app" },
        spec: {
          replicas: 1,
          selector: selector("sc-app"),
          template: demoPodTemplate("sc-app", [{ name: "SVC_SIDECAR_PORT", value: String(port) }]),
        },
      },
    });
    await flags.create("rate", {
      type: "integer",
      defaultValue: "5",
      delivery: { sidecar: { port, selector: selector("sc-app") } },
    });
    const withSidecar = (pod: V1Pod) =>
      pod.spec?.initContainers?.some((c) => c.name === SIDECAR_CONTAINER_NAME) === true;
    const value = async () => {
      const pods = await readyPods(kc, ns, "sc-app", 1, 120_000);
      const pod = pods[0] as V1Pod;
      return { pod, seen: await seenFlags(kc, ns, pod.metadata?.name ?? "") };
    };
    const first = await eventually(
      value,
      ({ pod, seen }) => withSidecar(pod) && sidecarValue(seen.sidecar, "rate") === "5",
      "the app reading rate=5 from its sidecar",
      120_000,
    );
    const { pod } = first;
    expect(pod.spec?.serviceAccountName).toBe("default");
    const sidecarStatus = pod.status?.initContainerStatuses?.find((s) => s.name === SIDECAR_CONTAINER_NAME);
    const appStatus = pod.status?.containerStatuses?.find((s) => s.name === "app");
    expect(sidecarStatus?.ready).toBe(true);
    const sidecarStarted = Date.parse(String(sidecarStatus?.state?.running?.startedAt));
    const appStarted = Date.parse(String(appStatus?.state?.running?.startedAt));
    expect(sidecarStarted).toBeLessThanOrEqual(appStarted);

    // A change reaches the app's subscription to the sidecar's stream, in the same pod.
    const eventsBefore = first.seen.stream?.events ?? 0;
    await flags.patchSpec("rate", { defaultValue: "7" });
    const changed = await eventually(
      value,
      ({ seen }) => sidecarValue(seen.sidecar, "rate") === "7" && (seen.stream?.events ?? 0) > eventsBefore,
      "rate=7 on the app's stream",
      60_000,
    );
    expect(changed.pod.metadata?.uid).toBe(pod.metadata?.uid);
    expect(changed.seen.stream?.lastEvent).toContain('"rate"');

    // Its flags are the pod's own: a peer outside the pod (here the kube-apiserver's proxy, from
    // the node) is refused them, while the kubelet's probe route answers it.
    const podName = pod.metadata?.name ?? "";
    const remote = await getFromPod(kc, ns, podName, port, "flags/rate/value").then(
      () => "answered",
      (error: unknown) => (error instanceof ApiException ? String(error.body) : String(error)),
    );
    expect(remote).toContain("served to the pod's own containers only");
    expect(await getFromPod(kc, ns, podName, port, "healthz")).toBe("ok");

    // The kube-apiserver reads the sidecar's log from the kubelet with its client certificate.
    const log = await core.readNamespacedPodLog({
      namespace: ns,
      name: pod.metadata?.name ?? "",
      container: SIDECAR_CONTAINER_NAME,
    });
    expect(log.length).toBeGreaterThan(0);
  });

  it("sidecar: the pod is not Ready while its sidecar is not (no ServiceAccount token: no API)", async () => {
    const template = demoPodTemplate("sc-noauth");
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: "sc-noauth" },
        spec: {
          replicas: 1,
          selector: selector("sc-noauth"),
          template: { ...template, spec: { ...template.spec, automountServiceAccountToken: false } },
        },
      },
    });
    await flags.create("noauth", {
      type: "boolean",
      defaultValue: "true",
      delivery: { sidecar: { port: 8601, selector: selector("sc-noauth") } },
    });
    const appReadyBesideSidecar = (p: V1Pod) =>
      p.spec?.initContainers?.some((c) => c.name === SIDECAR_CONTAINER_NAME) === true &&
      p.status?.containerStatuses?.some((s) => s.name === "app" && s.ready) === true;
    const pods = await eventually(
      async () => (await core.listNamespacedPod({ namespace: ns, labelSelector: "app=sc-noauth" })).items,
      (items) => items.some(appReadyBesideSidecar),
      "the app container ready beside a sidecar without API access",
      120_000,
    );
    const running = pods.find(appReadyBesideSidecar) as V1Pod;
    expect(running.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("False");
    expect(running.status?.initContainerStatuses?.find((s) => s.name === SIDECAR_CONTAINER_NAME)?.ready).toBe(
      false,
    );
  });
});
