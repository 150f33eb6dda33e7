// The Helm chart deploy/helm/svc, with the pinned helm (hack/helm) against the real control
// plane: it lints and renders in both profiles, the real kube-apiserver accepts every manifest
// (dry-run and for real), the production password survives upgrades, and the API and the
// operator deliver flags holding exactly the chart's RBAC (their ServiceAccounts' tokens).
import { execFileSync } from "node:child_process";
import { readFile, rm, writeFile, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
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
import { eventually, testKubeConfig, testNamespace } from "../support/kube.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const CHART = join(ROOT, "deploy/helm/svc");
const HELM = join(process.env["SVC_HELM_BIN"] ?? join(ROOT, ".cache/helm/bin"), "helm");
const KUBECTL = join(process.env["SVC_CONTROLPLANE_BIN"] ?? join(ROOT, ".cache/controlplane/bin"), "kubectl");
const kc = testKubeConfig();
const kubeconfigPath = inject("kubeconfigPath");
const releases: { name: string; namespace: string }[] = [];
let work = "";

function helm(args: string[], input?: string): string {
  return execFileSync(HELM, args, {
    encoding: "utf8",
    input,
    env: {
      ...process.env,
      KUBECONFIG: kubeconfigPath,
      HELM_CACHE_HOME: join(work, "cache"),
      HELM_CONFIG_HOME: join(work, "config"),
      HELM_DATA_HOME: join(work, "data"),
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
}

function kubectl(args: string[], input: string): string {
  return execFileSync(KUBECTL, ["--kubeconfig", kubeconfigPath, ...args], { encoding: "utf8", input });
}

/** `helm install` into the namespace, uninstalled after the file. */
function install(name: string, namespace: string, values: string[]): void {
  helm(["install", name, CHART, "-n", namespace, ...values.flatMap((v) => ["--set", v])]);
  releases.push({ name, namespace });
}

const adminPassword = async (namespace: string) =>
  Buffer.from(
    (await kc.makeApiClient(CoreV1Api).readNamespacedSecret({ namespace, name: "svc-admin" })).data?.[
      "password"
    ] ?? "",
    "base64",
  ).toString("utf8");

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "svc-helm-"));
});

afterAll(async () => {
  for (const { name, namespace } of releases) helm(["uninstall", name, "-n", namespace]);
  await rm(work, { recursive: true, force: true });
});

describe("the chart", () => {
  it("lints in both profiles, and its schema refuses a bad value by name", () => {
    for (const profile of ["production", "development"])
      expect(helm(["lint", CHART, "--set", `profile=${profile}`])).toMatch(
        /1 chart\(s\) linted, 0 chart\(s\) failed/,
      );
    const refusal = (value: string) => {
      try {
        helm(["template", "x", CHART, "--set", value]);
      } catch (error) {
        return String((error as { stderr?: string }).stderr);
      }
      return "rendered";
    };
    expect(refusal("profile=staging")).toContain(
      "at '/profile': value must be one of 'production', 'development'",
    );
    expect(refusal("operator.replicaz=2")).toContain(
      "at '/operator': additional properties 'replicaz' not allowed",
    );
  });

  it("stores the development profile's documented password, or the one auth.adminPassword sets", () => {
    const secretOf = (...values: string[]) =>
      helm([
        "template",
        "x",
        CHART,
        "--show-only",
        "templates/admin-secret.yaml",
        ...values.flatMap((v) => ["--set", v]),
      ]);
    const b64 = (text: string) => Buffer.from(text).toString("base64");
    expect(secretOf("profile=development")).toContain(`password: "${b64("admin-dev-password")}"`);
    for (const profile of ["production", "development"])
      expect(secretOf(`profile=${profile}`, "auth.adminPassword=Chosen-Pass-1")).toContain(
        `password: "${b64("Chosen-Pass-1")}"`,
      );
  });

  it("ships the CRDs of deploy/crds unchanged", async () => {
    for (const file of ["featureflags.svc.io.yaml", "clusterconnections.svc.io.yaml"])
      expect(await readFile(join(CHART, "crds", file), "utf8")).toBe(
        await readFile(join(ROOT, "deploy/crds", file), "utf8"),
      );
  });

  it.each(["production", "development"])(
    "renders the %s profile into manifests the kube-apiserver accepts, dry-run and for real",
    async (profile) => {
      const namespace = await testNamespace(kc, `helm-${profile.slice(0, 4)}`);
      const rendered = helm([
        "template",
        `r-${namespace}`,
        CHART,
        "-n",
        namespace,
        "--include-crds",
        "--set",
        `profile=${profile}`,
        "--set",
        "ingress.enabled=true",
      ]);
      for (const kind of [
        "Deployment",
        "Service",
        "ServiceAccount",
        "ClusterRole",
        "Role",
        "NetworkPolicy",
        "Ingress",
        "Secret",
        "PersistentVolumeClaim",
        "CustomResourceDefinition",
      ])
        expect(rendered, kind).toContain(`kind: ${kind}`);
      // svc's own CRDs are installed already by another manager: the chart takes them over unchanged.
      const apply = ["apply", "--server-side", "--force-conflicts", "--field-manager=helm-test", "-f", "-"];
      kubectl([...apply, "--dry-run=server"], rendered);
      kubectl(apply, rendered);
      const deployments = await kc.makeApiClient(AppsV1Api).listNamespacedDeployment({ namespace });
      expect(deployments.items.map((d) => d.metadata?.name).sort()).toEqual([
        "svc-api",
        "svc-dashboard",
        "svc-operator",
      ]);
      kubectl(
        ["delete", "--ignore-not-found", "--wait=false", "-f", "-"],
        rendered
          .split("\n---\n")
          .filter((doc) => !doc.includes("kind: CustomResourceDefinition"))
          .join("\n---\n"),
      );
    },
  );

  it("keeps the production profile's generated password across upgrades", async () => {
    const namespace = await testNamespace(kc, "helm-prod");
    install(`p-${namespace}`, namespace, ["profile=production"]);
    const first = await adminPassword(namespace);
    expect(first).toMatch(/^[A-Za-z0-9]{16}$/);
    helm(["upgrade", `p-${namespace}`, CHART, "-n", namespace, "--set", "profile=production"]);
    helm(["upgrade", `p-${namespace}`, CHART, "-n", namespace, "--set", "profile=production"]);
    expect(await adminPassword(namespace)).toBe(first);
    expect(helm(["get", "notes", `p-${namespace}`, "-n", namespace])).toContain(
      "get secret svc-admin -o jsonpath='{.data.password}'",
    );
  });
});

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
    const file = join(work, `${account}.kubeconfig`);
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
      ...parseOperatorConfig({
        SVC_OPERATOR_METRICS_PORT: "0",
        SVC_OPERATOR_METRICS_HOST: "127.0.0.1",
        SVC_OPERATOR_IDENTITY: "helm-test",
      }),
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
      SVC_DATABASE_PATH: join(work, "svc.sqlite"),
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
