// `svc dev`'s demo data: one workload of each kind the operator delivers to, and one flag of
// each delivery kind, each reaching one of them, so every delivery shows in the dashboard.
import { ApiException, AppsV1Api, type KubeConfig, type V1PodTemplateSpec } from "@kubernetes/client-node";
import type { FlagCreateBody } from "@svc/core";
import { ensureNamespace } from "@svc/kube";

export const DEMO_NAMESPACE = "demo";

/** The demo sidecar flag's port: the sidecar `svc dev` runs for the demo namespace listens there. */
export const DEMO_SIDECAR_PORT = 8514;

function podTemplate(app: string, image: string): V1PodTemplateSpec {
  return { metadata: { labels: { app } }, spec: { containers: [{ name: app, image }] } };
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
          spec: { replicas: 2, selector: selector("web"), template: podTemplate("web", "nginx:1.27") },
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
            template: podTemplate("cache", "redis:7"),
          },
        },
      }),
    () =>
      apps.createNamespacedDaemonSet({
        namespace,
        body: {
          metadata: { name: "log-agent", labels: { app: "log-agent" } },
          spec: { selector: selector("log-agent"), template: podTemplate("log-agent", "busybox:1.36") },
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
