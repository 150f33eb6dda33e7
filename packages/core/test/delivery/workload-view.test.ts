import { describe, expect, it } from "vitest";
import { discoveredWorkload, planWorkload, REDACTED, workloadDetail } from "../../src/index.ts";
import { CLUSTER, applyPlan, configMapFlag, envFlag, workload } from "../support/workloads.ts";

const web = { app: "web" };
/** A reader who may see literal values (editor, admin); workload-env-visibility.test.ts has the viewer. */
const EDITOR = { literalValues: true };
const running = workload("web", {
  labels: { app: "web", team: "shop" },
  templateLabels: { pod: "web" },
  initContainers: [
    { name: "migrate", image: "shop/migrate:1", env: [{ name: "DB_PASSWORD", value: "hunter2" }] },
  ],
  containers: [
    {
      name: "app",
      image: "shop/web:1",
      env: [
        { name: "LOG_LEVEL", value: "debug" },
        { name: "api_key", value: "k-123" },
        { name: "GITHUB_TOKEN", value: "ghp" },
        { name: "AWS_SECRET_ACCESS_KEY", value: "s" },
        { name: "DB_CREDENTIALS", value: "c" },
        { name: "EMPTY" },
        { name: "DB_URL", valueFrom: { secretKeyRef: { name: "db", key: "url" } } },
        { name: "COLOUR", valueFrom: { configMapKeyRef: { name: "theme", key: "colour" } } },
      ],
      envFrom: [{ configMapRef: { name: "common" } }, { secretRef: { name: "api-keys" } }],
    },
    { name: "proxy", image: "shop/web:1" },
  ],
  volumes: [
    { name: "tls", secret: { secretName: "web-tls" } },
    { name: "conf", configMap: { name: "web-conf" } },
    { name: "all", projected: { sources: [{ configMap: { name: "theme" } }, { secret: { name: "db" } }] } },
  ],
});

describe("discoveredWorkload", () => {
  it("shows containers, images and references, redacting secret-looking literal values", () => {
    const view = discoveredWorkload(CLUSTER, running, [], EDITOR);
    expect(view).toMatchObject({
      clusterId: "local",
      namespace: "shop",
      name: "web",
      kind: "Deployment",
      labels: { app: "web", team: "shop" },
      replicas: 2,
      readyReplicas: 0,
      images: ["shop/migrate:1", "shop/web:1"],
      configMapRefs: ["common", "theme", "web-conf"],
      secretRefs: ["api-keys", "db", "web-tls"],
      injectedFlags: [],
      flagsHash: null,
    });
    expect(view.containers.map((c) => [c.name, c.init])).toEqual([
      ["migrate", true],
      ["app", false],
      ["proxy", false],
    ]);
    expect(view.containers[0]?.env).toEqual([{ name: "DB_PASSWORD", value: REDACTED }]);
    expect(view.containers[1]?.env).toEqual([
      { name: "LOG_LEVEL", value: "debug" },
      { name: "api_key", value: REDACTED },
      { name: "GITHUB_TOKEN", value: REDACTED },
      { name: "AWS_SECRET_ACCESS_KEY", value: REDACTED },
      { name: "DB_CREDENTIALS", value: REDACTED },
      { name: "EMPTY", value: "" },
      { name: "DB_URL", valueFrom: { secretKeyRef: { name: "db", key: "url" } } },
      { name: "COLOUR", valueFrom: { configMapKeyRef: { name: "theme", key: "colour" } } },
    ]);
    expect(JSON.stringify(view)).not.toMatch(/hunter2|k-123|ghp/);
  });

  it("reports a DaemonSet's scheduled and ready pods as replicas", () => {
    const agent = workload("agent", { kind: "DaemonSet" });
    agent.object.status = { desiredNumberScheduled: 3, numberReady: 2 };
    expect(discoveredWorkload(CLUSTER, agent, [], EDITOR)).toMatchObject({ replicas: 3, readyReplicas: 2 });
  });

  it("lists the flags svc has injected, and the hash", () => {
    const target = workload("web", { labels: web });
    const flags = [envFlag("checkout", web), configMapFlag("limit", "web-flags", web)];
    expect(discoveredWorkload(CLUSTER, target, flags, EDITOR).injectedFlags).toEqual([]);
    const plan = planWorkload(target, flags, CLUSTER);
    const view = discoveredWorkload(CLUSTER, applyPlan(target, plan), flags, EDITOR);
    expect(view.injectedFlags).toEqual([
      { name: "checkout", delivery: "envVar", envVar: "FLAG_CHECKOUT" },
      { name: "limit", delivery: "configMap" },
    ]);
    expect(view.flagsHash).toBe(plan.flagsHash);
    expect(view.configMapRefs).toEqual(["web-flags"]);
  });
});

describe("workloadDetail", () => {
  it("adds the pod template labels and every flag whose selector matches, with its outcome", () => {
    const target = workload("web", { labels: web, templateLabels: { tier: "front" } });
    const flags = [
      envFlag("b-checkout", web),
      envFlag("a-front", { tier: "front" }),
      envFlag("api", { app: "api" }),
    ];
    const detail = workloadDetail(CLUSTER, target, flags, EDITOR);
    expect(detail.podTemplateLabels).toEqual({ tier: "front" });
    expect(detail.flags).toEqual([
      {
        name: "a-front",
        delivery: "envVar",
        matchedBy: "podTemplateLabels",
        outcome: "pending",
        message: "",
        envVar: "FLAG_A_FRONT",
        value: "on",
      },
      {
        name: "b-checkout",
        delivery: "envVar",
        matchedBy: "labels",
        outcome: "pending",
        message: "",
        envVar: "FLAG_B_CHECKOUT",
        value: "on",
      },
    ]);
  });
});
