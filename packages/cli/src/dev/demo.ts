// `svc dev`'s demo data: one workload of each kind the operator delivers to, and one flag of
// each delivery kind, each reaching one of them, so every delivery shows in the dashboard.
import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  type KubeConfig,
  type V1PodTemplateSpec,
} from "@kubernetes/client-node";
import type { FlagCreateBody } from "@svc/core";
import { ensureNamespace, isReady, waitFor } from "@svc/kube";

export const DEMO_NAMESPACE = "demo";

/** The demo sidecar flag's port: the sidecar serving the demo namespace listens there. */
export const DEMO_SIDECAR_PORT = 8514;

/**
 * The demo application (deploy/demo-app, built by make images): it shows the flags its pod sees
 * on port 8080 (GET / and /flags.json).
 */
export const DEMO_IMAGE = "ghcr.io/svc-io/svc-demo:0.1.0";
export const DEMO_APP_PORT = 8080;

function podTemplate(app: string, env: { name: string; value: string }[] = []): V1PodTemplateSpec {
  return {
    metadata: { labels: { app } },
    spec: {
      terminationGracePeriodSeconds: 5,
      containers: [
        {
          name: app,
          image: DEMO_IMAGE,
          env,
          ports: [{ name: "http", containerPort: DEMO_APP_PORT }],
          readinessProbe: { httpGet: { path: "/healthz", port: DEMO_APP_PORT }, periodSeconds: 2 },
          resources: { requests: { cpu: "10m", memory: "32Mi" }, limits: { memory: "128Mi" } },
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

/** Creates the demo namespace and workloads; kept when they exist (a cluster of your own). */
export async function createDemoWorkloads(kc: KubeConfig): Promise<void> {
  await ensureNamespace(kc, DEMO_NAMESPACE);
  const apps = kc.makeApiClient(AppsV1Api);
  const namespace = DEMO_NAMESPACE;
  const selector = (app: string) => ({ matchLabels: { app } });
  const creates = [
    () =>
      apps.createNamespacedDeployment({
        namespace,
        body: {
          metadata: { name: "web", labels: { app: "web" } },
          spec: { replicas: 2, selector: selector("web"), template: podTemplate("web") },
        },
      }),
    () =>
      apps.createNamespacedStatefulSet({
        namespace,
        body: {
          metadata: { name: "cache", labels: { app: "cache" } },
          spec: {
            replicas: 1,
            serviceName: "cache",
            selector: selector("cache"),
            template: podTemplate("cache"),
          },
        },
      }),
    () =>
      apps.createNamespacedDaemonSet({
        namespace,
        body: {
          metadata: { name: "log-agent", labels: { app: "log-agent" } },
          spec: {
            selector: selector("log-agent"),
            template: podTemplate("log-agent", [
              { name: "SVC_SIDECAR_PORT", value: String(DEMO_SIDECAR_PORT) },
            ]),
          },
        },
      }),
  ];
  for (const create of creates) {
    try {
      await create();
    } catch (error) {
      if (!(error instanceof ApiException && error.code === 409)) throw error;
    }
  }
}

/** The demo flags of a cluster: envVar to the Deployment, configMap to the StatefulSet, sidecar to the DaemonSet. */
export function demoFlags(clusterId: string): FlagCreateBody[] {
  const flag = { namespace: DEMO_NAMESPACE, clusterId };
  return [
    {
      ...flag,
      name: "new-checkout",
      type: "boolean",
      defaultValue: "true",
      description: "New checkout flow (environment variable FLAG_NEW_CHECKOUT of Deployment web)",
      delivery: { envVar: { selector: { matchLabels: { app: "web" } } } },
    },
    {
      ...flag,
      name: "welcome-message",
      type: "string",
      defaultValue: "Welcome to the demo shop",
      description:
        "Banner text (key welcome-message of ConfigMap demo-flags, mounted into StatefulSet cache)",
      delivery: {
        configMap: {
          configMapName: "demo-flags",
          key: "welcome-message",
          selector: { matchLabels: { app: "cache" } },
        },
      },
    },
    {
      ...flag,
      name: "sampling-rate",
      type: "integer",
      defaultValue: "100",
      description: "Log lines kept per thousand (served by the svc-flags sidecar of DaemonSet log-agent)",
      delivery: { sidecar: { port: DEMO_SIDECAR_PORT, selector: { matchLabels: { app: "log-agent" } } } },
    },
  ];
}

/** A demo pod as the banner shows it; its address is reachable from this machine (the pod network). */
export interface DemoPod {
  name: string;
  ready: boolean;
  ip: string | undefined;
}

/** Web's two replicas, cache's one, and log-agent's one on the local node. */
const DEMO_POD_COUNT = 4;

/** The demo pods, once all are Ready or `timeoutMs` passed (then as they are). */
export async function demoPods(kc: KubeConfig, timeoutMs: number): Promise<DemoPod[]> {
  const core = kc.makeApiClient(CoreV1Api);
  const list = async () =>
    (await core.listNamespacedPod({ namespace: DEMO_NAMESPACE })).items.filter(
      (pod) => pod.metadata?.deletionTimestamp === undefined,
    );
  const pods = await waitFor(list, (items) => items.length >= DEMO_POD_COUNT && items.every(isReady), {
    what: "the demo pods ready",
    timeoutMs,
    intervalMs: 500,
  }).catch(list);
  return pods
    .map((pod) => ({
      name: pod.metadata?.name ?? "",
      ready: isReady(pod),
      ip: pod.status?.podIP,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
