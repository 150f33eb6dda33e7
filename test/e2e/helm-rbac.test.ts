// The API server and the operator of the Helm chart holding exactly its RBAC (their
// ServiceAccounts' tokens, not the admin's) against the real control plane: they deliver a flag
// of each kind, write status and Events, grant the sidecar its Role, and register a cluster.
import { validOrThrow } from "@svc/core/schema/field-errors";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  RbacAuthorizationV1Api,
} from "@kubernetes/client-node";
import { buildApiServer, parseApiConfig } from "@svc/api";
import { API_GROUP, CLUSTER_CONNECTION, localClusterConnection } from "@svc/core";
import { ClusterRegistry } from "@svc/kube";
import { parseOperatorConfig, runOperator } from "@svc/operator";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { adminPassword as passwordIn, helmSession } from "../support/helm.ts";
import { eventually, testKubeConfig, testNamespace } from "../support/kube.ts";

const kc = testKubeConfig();
const kubeconfigPath = inject("kubeconfigPath");
const { work, install } = helmSession();
const adminPassword = (namespace: string) => passwordIn(kc, namespace);

describe("the API server and the operator with exactly the chart's RBAC", () => {
  let namespace = "";
  let workloads = "";
  let close: () => Promise<void> = () => Promise.resolve();

  /** A kubeconfig as a ServiceAccount of the chart: its token, the cluster's CA. */
  async function kubeConfigAs(account: string): Promise<KubeConfig> {
    const request = await kc.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
      namespace,
      name: account,
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    const cluster = kc.getCurrentCluster();
    if (cluster === null) throw new Error("no current cluster");
    const file = join(work(), `${account}.kubeconfig`);
    const as = new KubeConfig();
    as.loadFromOptions({
      clusters: [cluster],
      users: [{ name: account, token: request.status?.token ?? "" }],
      contexts: [{ name: account, cluster: cluster.name, user: account }],
      currentContext: account,
    });
    await writeFile(file, as.exportConfig());
    return as;
  }

  beforeAll(async () => {
    namespace = await testNamespace(kc, "helm-rbac");
    workloads = await testNamespace(kc, "helm-rbac-apps");
    install(`d-${namespace}`, namespace, ["profile=development"]);
    // The local cluster limited to this file's namespace (other files run their own operators).
    const local = localClusterConnection({
      id: "local",
      apiServer: kc.getCurrentCluster()?.server ?? "",
      systemNamespace: namespace,
    });
    await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: API_GROUP,
      version: "v1alpha1",
      namespace,
      plural: CLUSTER_CONNECTION.plural,
      body: { ...local, spec: { ...local.spec, namespaces: [workloads] } },
    });
    await kc.makeApiClient(AppsV1Api).createNamespacedDeployment({
      namespace: workloads,
      body: {
        metadata: { name: "web", labels: { app: "web" } },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: "web" } },
          template: {
            metadata: { labels: { app: "web" } },
            spec: { containers: [{ name: "web", image: "example/web:1" }] },
          },
        },
      },
    });
    const operatorKc = await kubeConfigAs("svc-operator");
    const apiKc = await kubeConfigAs("svc-api");
    const operator = await runOperator({
      ...validOrThrow(
        parseOperatorConfig({
          SVC_OPERATOR_METRICS_PORT: "0",
          SVC_OPERATOR_METRICS_HOST: "127.0.0.1",
          SVC_OPERATOR_IDENTITY: "helm-test",
          // As the chart runs it (its Role must allow listing and deleting Leases).
          SVC_OPERATOR_SHARDING: "true",
        }),
      ),
      systemNamespace: namespace,
      kubeConfig: operatorKc,
      log: pino({ level: "silent" }),
    });
    await operator.ready;
    // The API server as the chart configures it, the admin password from the chart's Secret.
    const config = parseApiConfig({
      SVC_API_HOST: "127.0.0.1",
      SVC_API_PORT: "0",
      SVC_METRICS_PORT: "0",
      SVC_DATABASE_PATH: join(work(), "svc.sqlite"),
      SVC_ADMIN_PASSWORD: await adminPassword(namespace),
      SVC_NAMESPACE: namespace,
      SVC_LOG_LEVEL: "silent",
    });
    if (!config.ok) throw new Error("bad API config");
    const clusters = await ClusterRegistry.start({
      hubKubeConfig: apiKc,
      systemNamespace: namespace,
      localClusterId: "local",
    });
    const api = await buildApiServer(config.value, { clusters });
    const { url } = await api.listen();
    apiUrl = url;
    close = async () => {
      await api.close();
      await clusters.close();
      await operator.close();
    };
  }, 180_000);

  afterAll(async () => {
    await close();
  });

  let apiUrl = "";

  /** A session of admin, logged in with the development profile's documented password. */
  async function login(): Promise<string> {
    const reply = await fetch(`${apiUrl}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password: "admin-dev-password" }),
    });
    expect(reply.status).toBe(200);
    return ((await reply.json()) as { token: string }).token;
  }

  it("logs in with the development profile's documented password, and delivers a flag of each kind", async () => {
    const token = await login();
    const selector = { matchLabels: { app: "web" } };
    for (const [name, delivery] of [
      ["rbac-env", { envVar: { selector } }],
      ["rbac-cm", { configMap: { configMapName: "rbac-flags", key: "rbac-cm", selector } }],
      ["rbac-sidecar", { sidecar: { selector } }],
    ] as const) {
      const created = await fetch(`${apiUrl}/api/v1/flags`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({
          name,
          namespace: workloads,
          clusterId: "local",
          type: "string",
          defaultValue: "on",
          description: "",
          delivery,
        }),
      });
      expect(created.status, name).toBe(201);
    }
    const apps = kc.makeApiClient(AppsV1Api);
    const template = await eventually(
      async () =>
        (await apps.readNamespacedDeployment({ namespace: workloads, name: "web" })).spec?.template.spec,
      (spec) =>
        spec?.containers[0]?.env?.some((e) => e.name === "FLAG_RBAC_ENV") === true &&
        (spec.initContainers ?? []).concat(spec.containers).some((c) => c.name === "svc-flags") &&
        (spec.volumes ?? []).some((v) => v.configMap?.name === "rbac-flags"),
      "the envVar, the sidecar and the ConfigMap volume in Deployment web",
    );
    expect(template?.containers[0]?.env).toContainEqual({ name: "FLAG_RBAC_ENV", value: "on" });
    // The ConfigMap is written apart from the workload: it may land just after it.
    await eventually(
      async () =>
        (await kc.makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace: workloads })).items.find(
          (c) => c.metadata?.name === "rbac-flags",
        )?.data?.["rbac-cm"],
      (value) => value === "on",
      "the key rbac-cm in ConfigMap rbac-flags",
    );
    // Its phase change recorded as an Event on the flag (the operator only logs a refused one).
    await eventually(
      async () => (await kc.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace: workloads })).items,
      (events) =>
        events.some((e) => e.involvedObject.name === "rbac-env" && e.source?.component === "svc-operator"),
      "an Event of svc-operator on the flag rbac-env",
    );
    // Status written through the status subresource, of the flags and of the local cluster.
    const objects = kc.makeApiClient(CustomObjectsApi);
    await eventually(
      async () =>
        (await objects.getNamespacedCustomObject({
          group: API_GROUP,
          version: "v1alpha1",
          namespace: workloads,
          plural: "featureflags",
          name: "rbac-env",
        })) as { status?: { phase?: string } },
      (flag) => flag.status?.phase === "Delivered",
      "flag rbac-env Delivered",
    );
    await eventually(
      async () =>
        (await objects.getNamespacedCustomObject({
          group: API_GROUP,
          version: "v1alpha1",
          namespace,
          plural: CLUSTER_CONNECTION.plural,
          name: "local",
        })) as { status?: { phase?: string } },
      (cluster) => cluster.status?.phase === "Connected",
      "the local ClusterConnection Connected",
    );
    // The sidecar reads its namespace's flags through the Role the operator granted (it holds
    // those verbs); the Role may land just after the workload.
    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    const [role, binding] = await eventually(
      async () => {
        const named = <T extends { metadata?: { name?: string } }>(items: T[]) =>
          items.find((item) => item.metadata?.name === "svc-flags-reader");
        return [
          named((await rbac.listNamespacedRole({ namespace: workloads })).items),
          named((await rbac.listNamespacedRoleBinding({ namespace: workloads })).items),
        ] as const;
      },
      ([r, b]) => r !== undefined && b !== undefined,
      "the Role and RoleBinding svc-flags-reader",
    );
    expect(role?.rules).toEqual([
      { apiGroups: [API_GROUP], resources: ["featureflags"], verbs: ["get", "list", "watch"] },
    ]);
    expect(binding?.subjects).toEqual([{ kind: "ServiceAccount", name: "default", namespace: workloads }]);
  });

  it("runs a FlagRollout made through the API to its end: plan, flag write, workload and pod reads, status, Events", async () => {
    const token = await login();
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${apiUrl}/api/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body ? { "content-type": "application/json" } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const flag = await call("POST", "/flags", {
      name: "rbac-plan",
      namespace: workloads,
      clusterId: "local",
      type: "string",
      defaultValue: "on",
      description: "",
      delivery: { envVar: { selector: { matchLabels: { app: "web" } } } },
    });
    expect(flag.status, await flag.clone().text()).toBe(201);
    const created = await call("POST", "/rollouts", {
      name: "rbac-plan",
      flag: { namespace: workloads, name: "rbac-plan" },
      change: { defaultValue: "off" },
      waves: [{ clusters: ["local"], bakeSeconds: 1 }],
    });
    expect(created.status, await created.clone().text()).toBe(201);
    type View = {
      status: {
        phase?: string;
        waves?: { clusters: { workloads?: { name: string; health: string }[] }[] }[];
      };
    };
    const plan = await eventually(
      async () => (await (await call("GET", "/rollouts/rbac-plan")).json()) as View,
      (view) => ["Succeeded", "RolledBack", "Failed"].includes(view.status.phase ?? ""),
      "plan rbac-plan finished",
    );
    expect(plan.status.phase).toBe("Succeeded");
    // The gate read the Deployment and its pods (by its selector) with the operator's RBAC.
    expect(plan.status.waves?.[0]?.clusters[0]?.workloads).toEqual([
      expect.objectContaining({ name: "web", health: "Healthy" }),
    ]);
    const env = (
      await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ namespace: workloads, name: "web" })
    ).spec?.template.spec?.containers[0]?.env;
    expect(env).toContainEqual({ name: "FLAG_RBAC_PLAN", value: "off" });
    const events = await kc.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace });
    expect(events.items.some((e) => e.involvedObject.name === "rbac-plan" && e.reason === "Succeeded")).toBe(
      true,
    );
    // The API watched the plan (its RBAC) and audited the operator's steps.
    const audited = await eventually(
      async () =>
        (await (await call("GET", "/audit?resource=rollout&action=step&resourceName=rbac-plan")).json()) as {
          actor: string;
          details: { step: string };
        }[],
      (rows) => rows.some((e) => e.details.step === "Succeeded"),
      "the plan's steps in the audit log",
    );
    expect(audited.every((e) => e.actor === "svc-operator")).toBe(true);
  });

  it("registers a cluster (its credentials Secret and ClusterConnection) and removes it", async () => {
    const token = await login();
    // The same control plane as a second cluster, watching only an empty namespace.
    const empty = await testNamespace(kc, "helm-rbac-remote");
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${apiUrl}/api/v1/clusters${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body ? { "content-type": "application/json" } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const registered = await call("POST", "", {
      id: "helm-remote",
      displayName: "helm remote",
      apiServer: kc.getCurrentCluster()?.server,
      authMethod: "kubeconfig",
      kubeconfig: await readFile(kubeconfigPath, "utf8"),
      namespaces: [empty],
    });
    expect(registered.status, await registered.clone().text()).toBe(201);
    const credentials = async () =>
      (
        await kc
          .makeApiClient(CoreV1Api)
          .listNamespacedSecret({ namespace, labelSelector: "svc.io/cluster=helm-remote" })
      ).items;
    expect(await credentials()).toHaveLength(1);
    await eventually(
      async () => ((await (await call("GET", "/helm-remote")).json()) as { status?: string }).status,
      (status) => status === "Connected",
      "cluster helm-remote connected",
    );
    expect((await call("DELETE", "/helm-remote")).status).toBeLessThan(300);
    expect(await credentials()).toEqual([]);
  });
});
