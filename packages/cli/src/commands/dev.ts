import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { AppsV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { API_GROUP, API_GROUP_VERSION, describeErrors, FEATURE_FLAG, SYSTEM_NAMESPACE } from "@svc/core";
import { ensureNamespace, installCrds } from "@svc/kube";
import { defaultBinDir, startLocalControlPlane } from "@svc/kube/testing";
import { parseOperatorConfig, runOperator } from "@svc/operator";
import { buildDashboardServer, parseDashboardConfig } from "@svc/dashboard";
import { configFromEnv, runSidecar } from "@svc/sidecar";
import { startDevApi } from "./api.ts";

const DEMO_NAMESPACE = "demo";

/** A Deployment and a flag targeting it, so the dashboard and API have something to show. */
async function createDemoData(kc: KubeConfig): Promise<void> {
  await ensureNamespace(kc, DEMO_NAMESPACE);
  const labels = { app: "web" };
  await kc.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace: DEMO_NAMESPACE,
    body: {
      metadata: { name: "web", labels },
      spec: {
        replicas: 2,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: "web", image: "nginx:1.27" }] } },
      },
    },
  });
  await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: API_GROUP,
    version: "v1alpha1",
    namespace: DEMO_NAMESPACE,
    plural: FEATURE_FLAG.plural,
    body: {
      apiVersion: API_GROUP_VERSION,
      kind: FEATURE_FLAG.kind,
      metadata: { name: "new-checkout" },
      spec: {
        type: "boolean",
        defaultValue: "true",
        description: "New checkout flow",
        delivery: { envVar: { selector: { matchLabels: labels } } },
      },
    },
  });
}

/** `svc dev`: everything on this machine, until Ctrl-C. */
export async function runDev(): Promise<void> {
  const parentDir = resolve(process.env["SVC_DEV_DIR"] ?? ".dev");
  await mkdir(parentDir, { recursive: true });
  process.stdout.write("svc dev: starting etcd, kube-apiserver and kube-controller-manager...\n");
  const controlPlane = await startLocalControlPlane({ parentDir });
  const kc = controlPlane.kubeConfig();
  await installCrds(kc);
  await ensureNamespace(kc, SYSTEM_NAMESPACE);
  await createDemoData(kc);
  const api = await startDevApi(parentDir, controlPlane.kubeconfigPath);
  // The operator delivers the demo flag to the demo Deployment, as it would in a cluster.
  const operator = await runOperator(
    parseOperatorConfig({
      SVC_OPERATOR_METRICS_HOST: "127.0.0.1",
      SVC_LOG_LEVEL: "warn",
      ...process.env,
      KUBECONFIG: controlPlane.kubeconfigPath,
    }),
  );
  await operator.ready;
  // The sidecar as the operator would inject it into the demo namespace's pods.
  const sidecar = await runSidecar(
    configFromEnv({
      SVC_SIDECAR_HOST: "127.0.0.1",
      SVC_LOG_LEVEL: "warn",
      ...process.env,
      POD_NAMESPACE: DEMO_NAMESPACE,
      KUBECONFIG: controlPlane.kubeconfigPath,
    }),
  );
  await sidecar.ready;
  const dashboardConfig = parseDashboardConfig({
    SVC_DASHBOARD_HOST: "127.0.0.1",
    SVC_LOG_LEVEL: "warn",
    ...process.env,
    SVC_API_URL: api.url,
  });
  if (!dashboardConfig.ok)
    throw new Error(`invalid dashboard configuration: ${describeErrors(dashboardConfig.errors)}`);
  const dashboard = await (await buildDashboardServer(dashboardConfig.value)).listen();
  process.stdout.write(
    [
      "",
      "svc dev is running. Press Ctrl-C to stop (everything below is removed then).",
      "",
      `  dashboard        ${dashboard.url}  (${api.adminLogin})`,
      `  REST API         ${api.url}  (${api.adminLogin}; metrics ${api.metricsUrl}/metrics)`,
      `  sidecar (demo)   ${sidecar.url}/flags  (stream: ${sidecar.url}/flags/stream)`,
      `  operator         metrics ${operator.metricsUrl}/metrics  (delivers flags to the demo Deployment)`,
      `  Kubernetes API   ${controlPlane.server}`,
      `  kubeconfig       ${controlPlane.kubeconfigPath}`,
      `  try              ${join(defaultBinDir(), "kubectl")} --kubeconfig ${controlPlane.kubeconfigPath} get featureflags -A`,
      `  demo data        namespace ${DEMO_NAMESPACE}: Deployment web, FeatureFlag new-checkout`,
      `  logs             ${controlPlane.dir}/*.log`,
      "",
    ].join("\n"),
  );
  // Runs until a signal: the control plane's exit hook then stops every process and removes its folder.
  setInterval(() => undefined, 2 ** 30);
}
