// SPEC.md, walked as a client written from SPEC.md alone would walk it: every endpoint, field,
// status code and default, against svc dev's real processes (its own control plane, no node),
// and the sidecar's endpoints inside a real pod on the test run's node. The walk's parts are in
// test/e2e/spec/; what SPEC.md leaves open is asserted as DESIGN.md §4 fixes it.
import { AppsV1Api, KubeConfig, type V1Pod } from "@kubernetes/client-node";
import { SIDECAR_CONTAINER_NAME } from "@svc/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flagClient, operatorScope, startOperator } from "../../packages/operator/test/support/operator.ts";
import type { RunningOperator } from "../../packages/operator/src/index.ts";
import { startDev, stopDev, type RunningDev } from "../support/dev-process.ts";
import { eventually, testKubeConfig, testNamespace } from "../support/kube.ts";
import { demoPodTemplate, describeOnNode, readyPods } from "../support/node.ts";
import { specApi, type SpecApi } from "./spec/api.ts";
import { walkAudit } from "./spec/audit.ts";
import { walkAuthRequired, walkErrorBodies, walkHealth, walkSessions, walkUsers } from "./spec/auth-users.ts";
import { walkClusters, walkWorkloads } from "./spec/clusters.ts";
import { walkDashboardProxy } from "./spec/dashboard-proxy.ts";
import { walkFlagCycles, walkFlags } from "./spec/flags.ts";
import { sidecarGets, streamAcross } from "./spec/sidecar-pod.ts";

const ADMIN_PASSWORD = "spec-walk-admin-1";
/** The acceptance loop: a GET after every 200 DELETE is a 404. */
const FLAG_CYCLES = 200;

describe("SPEC.md against svc dev's processes", () => {
  let dev: RunningDev | undefined;
  let api: SpecApi;
  let admin = "";
  let hub: KubeConfig;

  beforeAll(async () => {
    dev = await startDev({ SVC_ADMIN_PASSWORD: ADMIN_PASSWORD });
    api = specApi(dev.field("REST API"));
    admin = await api.login("admin", ADMIN_PASSWORD);
    hub = new KubeConfig();
    hub.loadFromFile(dev.field("kubeconfig"));
  });

  afterAll(async () => {
    if (dev !== undefined) expect(await stopDev(dev)).not.toBeNull();
  });

  it("GET /healthz: 200 ok in plain text, without a token", () => walkHealth(api));
  it("every other endpoint: 401 {error} without a valid token", () => walkAuthRequired(api));
  it("every error has a JSON body {error}", () => walkErrorBodies(api, admin));
  it("the dashboard's proxy: the API through it, 502 {error} when it cannot reach the API", () =>
    walkDashboardProxy(dev?.field("dashboard") ?? "", admin));
  it("login, bad credentials, me, logout: the token is dead afterwards", () =>
    walkSessions(api, ADMIN_PASSWORD));
  it("users: list, create, update, delete, per role, with their errors", () => walkUsers(api, admin));
  it("flags: create, read, list filters, update, toggle, delete, per role, with their errors", () =>
    walkFlags(api, admin, hub));
  it(`flags: ${FLAG_CYCLES} create-update-toggle-delete cycles, each deleted flag 404 at once`, () =>
    walkFlagCycles(api, admin, FLAG_CYCLES));
  it("clusters: the local cluster, SPEC.md's registration body (no credentials), removal", () =>
    walkClusters(api, admin, hub));
  it("namespaces and workloads of a cluster", () => walkWorkloads(api, admin));
  it("audit: listed by every role, filtered by resource, action and cluster", () => walkAudit(api, admin));
});

// A pod needs the machine's one node, which belongs to the test run's control plane, not to svc
// dev's: here the flags are FeatureFlag resources in this file's namespace (the sidecar reads them
// from its own cluster, DESIGN.md §3), delivered by an operator confined to that namespace, as in
// node-delivery.test.ts. How the test reaches the sidecar is said in spec/sidecar-pod.ts.
const kc = testKubeConfig();

describeOnNode("SPEC.md's sidecar endpoints inside a real pod", () => {
  let operator: RunningOperator | undefined;
  let ns = "";
  let flags: ReturnType<typeof flagClient>;

  beforeAll(async () => {
    ns = await testNamespace(kc, "spec-sidecar");
    operator = await startOperator(await operatorScope(kc, "spec-sidecar", [ns]));
    flags = flagClient(kc, ns);
  });

  afterAll(async () => {
    await operator?.close();
  });

  it("GET /flags, /flags/{name}, /flags/{name}/value, /healthz and the update stream, on the default port", async () => {
    await kc.makeApiClient(AppsV1Api).createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: "spec-app" },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: "spec-app" } },
          template: demoPodTemplate("spec-app"),
        },
      },
    });
    // No port in the delivery: SPEC.md's default, 8514.
    const delivery = { sidecar: { selector: { matchLabels: { app: "spec-app" } } } };
    await flags.create("spec-rate", { type: "integer", defaultValue: "5", description: "", delivery });
    await flags.create("spec-on", { type: "boolean", defaultValue: "true", description: "", delivery });
    const withSidecar = (pod: V1Pod) =>
      pod.spec?.initContainers?.some((c) => c.name === SIDECAR_CONTAINER_NAME) === true;
    const [pod] = await eventually(
      () => readyPods(kc, ns, "spec-app", 1, 120_000),
      (pods) => pods.every(withSidecar),
      "a ready pod with the sidecar",
      150_000,
    );
    const target = { namespace: ns, pod: pod?.metadata?.name ?? "", port: 8514 };
    const get = (...paths: string[]) => sidecarGets(kc, target.namespace, target.pod, target.port, paths);
    const rate = { name: "spec-rate", type: "integer", value: "5", disabled: false };
    const on = { name: "spec-on", type: "boolean", value: "true", disabled: false };

    const answers = await eventually(
      () => get("/healthz", "/flags", "/flags/spec-rate", "/flags/spec-rate/value", "/flags/no-such-flag"),
      (a) => a["/flags"]?.status === 200 && (JSON.parse(a["/flags"].text) as unknown[]).length === 2,
      "both flags at the sidecar",
    );
    expect(answers["/healthz"]?.status).toBe(200);
    expect(answers["/flags"]?.contentType).toMatch(/^application\/json/);
    expect(JSON.parse(answers["/flags"]?.text ?? "")).toEqual(expect.arrayContaining([rate, on]));
    expect(answers["/flags/spec-rate"]?.status).toBe(200);
    expect(answers["/flags/spec-rate"]?.contentType).toMatch(/^application\/json/);
    expect(JSON.parse(answers["/flags/spec-rate"]?.text ?? "")).toEqual(rate);
    expect(answers["/flags/spec-rate/value"]?.status).toBe(200);
    expect(answers["/flags/spec-rate/value"]?.contentType).toMatch(/^text\/plain/);
    expect(answers["/flags/spec-rate/value"]?.text).toBe("5");
    expect(answers["/flags/no-such-flag"]?.status).toBe(404);
    expect(Object.keys(JSON.parse(answers["/flags/no-such-flag"]?.text ?? "") as object)).toEqual(["error"]);

    // A change arrives on the stream as an `update` event with the sidecar flag object.
    const changed = await streamAcross(kc, target, { name: "spec-rate", value: "7", disabled: false }, () =>
      flags.patchSpec("spec-rate", { defaultValue: "7" }),
    );
    expect(changed.at(-1)).toEqual({ event: "update", data: { ...rate, value: "7" } });
    // Disabling it (the toggle's state) shows as disabled: true, on the stream and at GET.
    const disabled = await streamAcross(kc, target, { name: "spec-rate", value: "*", disabled: true }, () =>
      flags.patchSpec("spec-rate", { enabled: false }),
    );
    expect(disabled.at(-1)).toMatchObject({
      event: "update",
      data: { name: "spec-rate", type: "integer", disabled: true },
    });
    expect(Object.keys(disabled.at(-1)?.data as object).sort()).toEqual([
      "disabled",
      "name",
      "type",
      "value",
    ]);
    const after = await get("/flags/spec-rate", "/flags/spec-rate/value");
    expect(JSON.parse(after["/flags/spec-rate"]?.text ?? "")).toMatchObject({
      name: "spec-rate",
      disabled: true,
    });
    // A disabled flag has no raw value (DESIGN.md §5: raw channels behave as if it were absent).
    expect(after["/flags/spec-rate/value"]?.status).toBe(404);
  });
});
