// Delivery guardrails (issue 37, item 2): variable names that change how a program starts,
// loads or connects are refused everywhere a flag enters or is applied; svc's own namespace,
// kube-* and the installer's list are never delivered to; workloads and namespaces opt out
// (or, in opt-in mode, in).
import { describe, expect, it } from "vitest";
import {
  DEFAULT_DELIVERY_POLICY,
  envVarNameAllowed,
  foreignConfigMapOwner,
  envVarNameProblem,
  envVarPolicyProblem,
  namespaceExclusion,
  namespaceNeverDelivered,
  planWorkload,
  REFUSED_ENV_VARS,
  refusedEnvVarRuntime,
  undeliverableReason,
  validateFlagCreate,
  validateFlagSpec,
  workloadExclusion,
  type DeliveryPolicy,
  type DeliveryScope,
} from "../../src/index.ts";
import { REFUSED_NAMES } from "../support/refused-env-names.ts";
import { CLUSTER, envFlag, flag, workload } from "../support/workloads.ts";

const web = { app: "web" };

/** Names flags use, and a few next to refused ones that nothing reads specially. */
const ALLOWED_NAMES = [
  "FLAG_NEW_CHECKOUT",
  "CHECKOUT_V2",
  "NODE_ENV",
  "ASPNETCORE_ENVIRONMENT",
  "FEATURE_DARK_MODE",
  "FLAG_CHECKOUT_OPTS",
  "FLAG_NEW_PROXY",
  "PATHFINDER_ENABLED",
  "HOMEPAGE_VARIANT",
  "ENVIRONMENT_BANNER",
];

describe("refused variable names", () => {
  it.each(REFUSED_NAMES)("refuses %s, naming the runtime that reads it", (name) => {
    expect(refusedEnvVarRuntime(name)).toBeDefined();
    expect(envVarNameProblem(name)).toMatch(new RegExp(`^${name} is refused: it changes how .+`));
  });

  it("names nothing svc's default names (FLAG_<NAME>) start with, which are allowed without a look", () => {
    const entries = REFUSED_ENV_VARS.flatMap((e) => [...e.names, ...(e.prefixes ?? [])]);
    expect(entries.filter((n) => n.startsWith("FLAG_") || "FLAG_".startsWith(n))).toEqual([]);
    // Every entry is upper case: names are compared upper-cased.
    expect(entries.filter((n) => n !== n.toUpperCase())).toEqual([]);
  });

  it.each(ALLOWED_NAMES)("allows %s", (name) => {
    expect(refusedEnvVarRuntime(name)).toBeUndefined();
    expect(envVarNameProblem(name)).toBeUndefined();
  });

  it("validateFlagSpec (create, update, import, plans) refuses them, naming the field", () => {
    const spec = (name: string) => ({
      type: "string",
      defaultValue: "x",
      delivery: { envVar: { name, selector: { matchLabels: web } } },
    });
    for (const name of REFUSED_NAMES) {
      const result = validateFlagSpec(spec(name));
      expect(result.ok, name).toBe(false);
      if (!result.ok) expect(result.errors.map((e) => e.field)).toEqual(["delivery.envVar.name"]);
    }
    expect(validateFlagSpec(spec("CHECKOUT_V2")).ok).toBe(true);
    const create = validateFlagCreate({
      name: "x",
      namespace: "shop",
      clusterId: "local",
      ...spec("NODE_OPTIONS"),
    });
    expect(create.ok).toBe(false);
  });

  it("a stored flag with such a name is undeliverable (the operator's check)", () => {
    const stored = flag("boot", { envVar: { name: "NODE_OPTIONS", selector: { matchLabels: web } } });
    expect(undeliverableReason(stored.spec)).toMatch(/NODE_OPTIONS is refused/);
    const plan = planWorkload(workload("web", { labels: web }), [stored], CLUSTER);
    expect(plan.env).toEqual([]);
    expect(plan.inSync).toBe(true);
    expect(plan.flags.map((f) => f.outcome)).toEqual(["invalid"]);
  });
});

describe("the installer's patterns", () => {
  it("match with * as any run of characters", () => {
    expect(envVarNameAllowed("FLAG_A", ["FLAG_*"])).toBe(true);
    expect(envVarNameAllowed("APP_A", ["FLAG_*"])).toBe(false);
    expect(envVarNameAllowed("APP_A", ["FLAG_*", "APP_*"])).toBe(true);
    expect(envVarNameAllowed("X_FLAG_Y", ["*_FLAG_*"])).toBe(true);
    expect(envVarNameAllowed("X_FLAG", ["*_FLAG_*"])).toBe(false);
    expect(envVarNameAllowed("EXACT", ["EXACT"])).toBe(true);
    expect(envVarNameAllowed("EXACTLY", ["EXACT"])).toBe(false);
    expect(envVarNameAllowed("ANY", [])).toBe(true);
  });

  it("apply to default names too, and never let a refused name through", () => {
    const policy: DeliveryPolicy = { ...DEFAULT_DELIVERY_POLICY, envVarNames: ["APP_*", "NODE_*"] };
    expect(envVarPolicyProblem(envFlag("checkout", web), policy)).toMatch(/FLAG_CHECKOUT is outside/);
    const named = (name: string) => flag("x", { envVar: { name, selector: { matchLabels: web } } });
    expect(envVarPolicyProblem(named("APP_CHECKOUT"), policy)).toBeUndefined();
    expect(envVarPolicyProblem(named("NODE_OPTIONS"), policy)).toMatch(/is refused/);
  });

  it("planWorkload refuses a flag outside them: nothing set, outcome invalid", () => {
    const scope: DeliveryScope = { policy: { ...DEFAULT_DELIVERY_POLICY, envVarNames: ["APP_*"] } };
    const plan = planWorkload(workload("web", { labels: web }), [envFlag("checkout", web)], CLUSTER, scope);
    expect(plan.env).toEqual([]);
    expect(plan.flags.map((f) => f.outcome)).toEqual(["invalid"]);
    expect(plan.flags[0]?.message).toMatch(/FLAG_CHECKOUT is outside/);
  });
});

describe("where svc never delivers", () => {
  const policy: DeliveryPolicy = {
    ...DEFAULT_DELIVERY_POLICY,
    serviceNamespace: "platform",
    excludedNamespaces: ["payments"],
  };

  it("svc's own namespace wherever installed, svc-system, kube-*, and the installer's list", () => {
    for (const namespace of [
      "platform",
      "svc-system",
      "kube-system",
      "kube-public",
      "kube-custom",
      "payments",
    ])
      expect(namespaceNeverDelivered(namespace, policy), namespace).toBeDefined();
    expect(namespaceNeverDelivered("shop", policy)).toBeUndefined();
    expect(namespaceNeverDelivered("kubeflow", policy)).toBeUndefined();
  });

  it("a namespace opts out with svc.io/flags=disabled; in opt-in mode only svc.io/flags=enabled gets flags", () => {
    expect(namespaceExclusion("shop", { policy, namespaceLabels: {} })).toBeUndefined();
    expect(namespaceExclusion("shop", { policy, namespaceLabels: { "svc.io/flags": "disabled" } })).toMatch(
      /disabled/,
    );
    const optIn = { ...policy, namespaceOptIn: true };
    expect(namespaceExclusion("shop", { policy: optIn, namespaceLabels: {} })).toMatch(/not labelled/);
    expect(namespaceExclusion("shop", { policy: optIn, namespaceLabels: undefined })).toMatch(/not labelled/);
    expect(
      namespaceExclusion("shop", { policy: optIn, namespaceLabels: { "svc.io/flags": "enabled" } }),
    ).toBeUndefined();
    expect(
      namespaceExclusion("platform", { policy: optIn, namespaceLabels: { "svc.io/flags": "enabled" } }),
    ).toBeDefined();
  });

  it("a workload opts out with svc.io/inject=false on itself or its pod template", () => {
    const scope = { policy };
    expect(
      workloadExclusion(workload("web", { labels: { ...web, "svc.io/inject": "false" } }), scope),
    ).toMatch(/svc.io\/inject=false/);
    expect(
      workloadExclusion(
        workload("web", { labels: web, templateLabels: { "svc.io/inject": "false" } }),
        scope,
      ),
    ).toBeDefined();
    expect(
      workloadExclusion(workload("web", { labels: { ...web, "svc.io/inject": "true" } }), scope),
    ).toBeUndefined();
  });

  it("planWorkload matches no flag of an excluded workload, and withdraws what svc set before", () => {
    const scope: DeliveryScope = { policy };
    const checkout = envFlag("checkout", web);
    const carrying = (labels: Record<string, string>) =>
      workload("web", {
        labels,
        containers: [{ name: "app", env: [{ name: "FLAG_CHECKOUT", value: "on" }] }],
        annotations: { "svc.io/managed-env": "FLAG_CHECKOUT", "svc.io/flags-hash": "x" },
        templateAnnotations: { "svc.io/flags-hash": "x" },
      });
    expect(planWorkload(carrying(web), [checkout], CLUSTER, scope).inSync).toBe(false);
    const own = workload("operator", { namespace: "platform", labels: web });
    const ownFlag = flag("boot", { envVar: { selector: { matchLabels: web } } }, {}, "platform");
    const plan = planWorkload(own, [ownFlag], CLUSTER, scope);
    expect(plan.flags).toEqual([]);
    expect(plan.env).toEqual([]);
    expect(plan.inSync).toBe(true);
    const withdrawn = planWorkload(
      carrying({ ...web, "svc.io/inject": "false" }),
      [checkout],
      CLUSTER,
      scope,
    );
    expect(withdrawn.flags).toEqual([]);
    expect(withdrawn.env).toEqual([]);
    expect(withdrawn.inSync).toBe(false);
  });

  it("by default (no scope given) svc-system and kube-* are never delivered to", () => {
    const sys = workload("api", { namespace: "svc-system", labels: web });
    const sysFlag = flag("boot", { envVar: { selector: { matchLabels: web } } }, {}, "svc-system");
    expect(planWorkload(sys, [sysFlag], CLUSTER).flags).toEqual([]);
  });
});

describe("whose a ConfigMap is", () => {
  it("svc's when labelled managed-by=svc (every ConfigMap svc created), or when absent", () => {
    expect(foreignConfigMapOwner(undefined)).toBeUndefined();
    expect(
      foreignConfigMapOwner({
        metadata: {
          labels: { "app.kubernetes.io/managed-by": "svc" },
          ownerReferences: [{ kind: "FeatureFlag", name: "theme", controller: false }],
          managedFields: [{ manager: "svc" }, { manager: "kubectl-patch" }],
        },
      }),
    ).toBeUndefined();
  });

  it("names someone else's owner as a person recognises it", () => {
    const owner = (metadata: NonNullable<Parameters<typeof foreignConfigMapOwner>[0]>["metadata"]) =>
      foreignConfigMapOwner({ metadata });
    expect(
      owner({
        labels: { "app.kubernetes.io/managed-by": "svc" },
        ownerReferences: [{ kind: "Deployment", name: "ingress-nginx-controller", controller: true }],
      }),
    ).toBe("Deployment ingress-nginx-controller");
    expect(
      owner({
        labels: { "app.kubernetes.io/managed-by": "Helm" },
        annotations: { "meta.helm.sh/release-name": "ingress-nginx" },
      }),
    ).toBe("Helm release ingress-nginx");
    expect(owner({ labels: { "app.kubernetes.io/managed-by": "argocd" } })).toBe("argocd");
    expect(owner({ managedFields: [{ manager: "kubectl-create" }, { manager: "svc" }] })).toBe(
      "kubectl-create",
    );
    expect(owner({})).toBe("someone other than svc");
  });
});
