// For the tests that need the real node (test/control-plane.global-setup.ts starts it when the
// machine can run one): their describe blocks are skipped, and reported as skipped, otherwise.
import { AppsV1Api, CoreV1Api, type KubeConfig, type V1Pod } from "@kubernetes/client-node";
import { describe, inject } from "vitest";
import { isReady } from "@svc/kube";
import { DEMO_APP_PORT, DEMO_IMAGE } from "../../packages/cli/src/dev/demo.ts";
import { eventually } from "./kube.ts";
import { NODE_TAINT } from "./node-taint.ts";

/** `describe`, skipped (with the reason in its name) when no node runs. */
export function describeOnNode(name: string, body: () => void): void {
  const why = inject("nodeUnavailable");
  describe.skipIf(inject("nodeName") === "")(why === "" ? name : `${name} (skipped: no node: ${why})`, body);
}

/** A pod template running the demo application on the test node (it tolerates the node's taint). */
export function demoPodTemplate(app: string, env: { name: string; value: string }[] = []) {
  return {
    metadata: { labels: { app } },
    spec: {
      tolerations: [
        { key: NODE_TAINT.key, operator: "Equal", value: NODE_TAINT.value, effect: NODE_TAINT.effect },
      ],
      terminationGracePeriodSeconds: 2,
      containers: [
        {
          name: "app",
          image: DEMO_IMAGE,
          env,
          ports: [{ name: "http", containerPort: DEMO_APP_PORT }],
          readinessProbe: { httpGet: { path: "/healthz", port: DEMO_APP_PORT }, periodSeconds: 1 },
          securityContext: {
            readOnlyRootFilesystem: true,
            runAsNonRoot: true,
            allowPrivilegeEscalation: false,
          },
        },
      ],
    },
  };
}

/** What the demo application answers at /flags.json. */
export interface SeenFlags {
  env: Record<string, string>;
  files: Record<string, string>;
  /** The sidecar's GET /flags answer, from the app's side of localhost. */
  sidecar: unknown;
  /** The app's subscription to the sidecar's /flags/stream: events received, the last one's data. */
  stream?: { events: number; lastEvent: string | null };
  hostname: string;
  startedAt: string;
}

/** GET `path` of a pod's port through the kube-apiserver's proxy (which reaches the pod network). */
export async function getFromPod(
  kc: KubeConfig,
  namespace: string,
  pod: string,
  port: number,
  path: string,
): Promise<unknown> {
  const core = kc.makeApiClient(CoreV1Api);
  // The client parses a JSON answer itself, and returns any other as text.
  return core.connectGetNamespacedPodProxyWithPath({ name: `${pod}:${port}`, namespace, path });
}

/** The value of a flag in a sidecar's GET /flags answer (SeenFlags.sidecar). */
export function sidecarValue(sidecar: unknown, name: string): string | undefined {
  if (!Array.isArray(sidecar)) return undefined;
  return (sidecar as { name: string; value: string }[]).find((f) => f.name === name)?.value;
}

export async function seenFlags(kc: KubeConfig, namespace: string, pod: string): Promise<SeenFlags> {
  return (await getFromPod(kc, namespace, pod, DEMO_APP_PORT, "flags.json")) as SeenFlags;
}

const isServing = (pod: V1Pod) => pod.metadata?.deletionTimestamp === undefined && isReady(pod);

/** The Ready pods with label app=`app`, once there are exactly `count` and no others. */
export async function readyPods(
  kc: KubeConfig,
  namespace: string,
  app: string,
  count: number,
  timeoutMs = 90_000,
): Promise<V1Pod[]> {
  const core = kc.makeApiClient(CoreV1Api);
  return eventually(
    async () => (await core.listNamespacedPod({ namespace, labelSelector: `app=${app}` })).items,
    (pods) => pods.length === count && pods.every(isServing),
    `${count} ready pod(s) of ${app}`,
    timeoutMs,
  );
}

/** Waits until the Deployment's rollout is complete (every replica updated and available). */
export async function rolledOut(
  kc: KubeConfig,
  namespace: string,
  name: string,
  timeoutMs = 90_000,
): Promise<void> {
  const apps = kc.makeApiClient(AppsV1Api);
  await eventually(
    () => apps.readNamespacedDeployment({ namespace, name }),
    (d) => {
      const want = d.spec?.replicas ?? 1;
      const s = d.status;
      if (s === undefined) return false;
      return (
        s.observedGeneration === d.metadata?.generation &&
        s.updatedReplicas === want &&
        s.availableReplicas === want &&
        s.replicas === want
      );
    },
    `deployment ${name} rolled out`,
    timeoutMs,
  );
}
