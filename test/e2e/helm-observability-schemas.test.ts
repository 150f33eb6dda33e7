// The chart's Prometheus Operator objects and PromQL against the real thing: the ServiceMonitor,
// PodMonitor and PrometheusRule go through the shared kube-apiserver with Prometheus Operator's
// own CRDs installed (pinned and fetched by hack/prometheus-operator/fetch-crds.sh), with strict
// field validation, so a misspelt field or a malformed value is a refused apply; and every alert
// and dashboard expression goes through Prometheus's own parser (hack/promql, built by
// hack/promql/build.sh). Both come with `make helm`, a prerequisite of `make test`.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { planWorkload } from "@svc/core";
import { beforeAll, describe, expect, it } from "vitest";
import { CLUSTER, sidecarFlag, workload } from "../../packages/core/test/support/workloads.ts";
import { workloadApplyConfiguration } from "../../packages/operator/src/workload-apply.ts";
import {
  chartExpressions,
  dashboardOf,
  manifestsOf,
  type Manifest,
  type Variable,
} from "../support/chart-expressions.ts";
import { CHART, helmSession } from "../support/helm.ts";
import { testKubeConfig, testNamespace } from "../support/kube.ts";
import { metricNames } from "../support/promql.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const CRDS = process.env["SVC_PROMETHEUS_OPERATOR_CRDS"] ?? join(ROOT, ".cache/prometheus-operator/crds");
const PROMQL_CHECK = join(process.env["SVC_PROMQL_BIN"] ?? join(ROOT, ".cache/promql/bin"), "promql-check");
const MONITORING_KINDS = ["PodMonitor", "PrometheusRule", "ServiceMonitor"];

const kc = testKubeConfig();
const { helm, kubectl } = helmSession();
let namespace = "";

/** Server-side apply, dry run, strict field validation: what a refused object throws. */
function dryRunApply(objects: Manifest[]): string {
  return kubectl(
    [
      "apply",
      "--server-side",
      "--field-manager=helm-test",
      "--dry-run=server",
      "--validate=strict",
      "-f",
      "-",
    ],
    JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }),
  );
}

/** The error output of a command that must fail. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return String((error as { stderr?: unknown }).stderr ?? error);
  }
  throw new Error("expected a refusal, but the command succeeded");
}

function monitoringObjects(values: string[]): Manifest[] {
  const rendered = helm(["template", "m", CHART, "-n", namespace, ...values.flatMap((v) => ["--set", v])]);
  return manifestsOf(rendered).filter((m) => MONITORING_KINDS.includes(m.kind));
}

const ALL_ON = ["serviceMonitor.enabled=true", "podMonitor.enabled=true", "prometheusRule.enabled=true"];

interface ParseResult {
  error: string;
  metrics: string[];
}

/** Prometheus's parser on each expression, in one run of promql-check. */
function parse(expressions: string[]): ParseResult[] {
  const out = execFileSync(PROMQL_CHECK, [], { encoding: "utf8", input: JSON.stringify(expressions) });
  return JSON.parse(out) as ParseResult[];
}

/**
 * An expression as Grafana sends it: its interval variables become a duration, the dashboard's
 * own variables a value (inside a label matcher's string, where the dashboard uses them). An
 * unknown variable is an error, not a guess.
 */
function interpolate(expr: string, variables: Variable[]): string {
  return expr.replace(/\$(?:\{(\w+)(?::\w+)?\}|(\w+))/g, (whole, braced?: string, plain?: string) => {
    const name = braced ?? plain ?? "";
    if (["__rate_interval", "__interval", "__range"].includes(name)) return "5m";
    if (variables.some((v) => v.name === name)) return "local";
    throw new Error(`unknown Grafana variable ${whole} in ${expr}`);
  });
}

beforeAll(() => {
  // Cluster-scoped and shared with the other files: applied (never deleted), so that a second
  // run or another file's apply of the same version changes nothing.
  const crds = readdirSync(CRDS).filter((f) => f.endsWith(".yaml"));
  expect(crds.sort()).toEqual([
    "monitoring.coreos.com_podmonitors.yaml",
    "monitoring.coreos.com_prometheusrules.yaml",
    "monitoring.coreos.com_servicemonitors.yaml",
  ]);
  for (const file of crds) {
    kubectl(
      [
        "apply",
        "--server-side",
        "--force-conflicts",
        "--field-manager=svc-test-prometheus-operator",
        "-f",
        "-",
      ],
      readFileSync(join(CRDS, file), "utf8"),
    );
  }
  kubectl(
    [
      "wait",
      "--for=condition=Established",
      "--timeout=60s",
      ...crds.map((f) => `crd/${f.slice(22, -5)}.monitoring.coreos.com`),
    ],
    "",
  );
});

describe("the chart's monitoring objects against Prometheus Operator's CRDs", () => {
  it("are accepted by the API server with every value that shapes them set", async () => {
    namespace ||= await testNamespace(kc, "helm-mon");
    const withEverything = monitoringObjects([
      ...ALL_ON,
      "serviceMonitor.interval=15s",
      "serviceMonitor.labels.release=kube-prometheus-stack",
      "podMonitor.interval=1m",
      "podMonitor.labels.release=kube-prometheus-stack",
      "podMonitor.namespaces={shop,web}",
      "prometheusRule.labels.release=kube-prometheus-stack",
      "prometheusRule.alertLabels.team=platform",
      "prometheusRule.runbookBaseUrl=https://example.com/docs",
    ]);
    // Each carries the labels Prometheus's selectors pick monitoring objects by.
    for (const object of withEverything) {
      expect(object.metadata.labels, object.kind).toMatchObject({ release: "kube-prometheus-stack" });
    }
    const defaults = monitoringObjects(ALL_ON);
    for (const objects of [withEverything, defaults]) {
      expect(objects.map((m) => m.kind).sort()).toEqual(MONITORING_KINDS);
      const out = dryRunApply(objects);
      expect(out).toMatch(
        /servicemonitor\.monitoring\.coreos\.com\/svc serverside-applied \(server dry run\)/,
      );
      expect(out).toMatch(/podmonitor\.monitoring\.coreos\.com\/svc-sidecars serverside-applied/);
      expect(out).toMatch(/prometheusrule\.monitoring\.coreos\.com\/svc serverside-applied/);
    }
    // Off by default: none is rendered.
    expect(helm(["template", "x", CHART])).not.toMatch(/kind: (PodMonitor|ServiceMonitor|PrometheusRule)/);
  });

  it("refuses a misspelt field and a malformed duration: the schemas really apply", async () => {
    namespace ||= await testNamespace(kc, "helm-mon");
    const objects = monitoringObjects(ALL_ON);
    const of = (kind: string) => structuredClone(objects.find((m) => m.kind === kind) as Manifest);

    const podMonitor = of("PodMonitor");
    const spec = podMonitor.spec as Record<string, unknown>;
    spec["podMetricEndpoints"] = spec["podMetricsEndpoints"];
    delete spec["podMetricsEndpoints"];
    expect(refusal(() => dryRunApply([podMonitor]))).toMatch(/podMetricEndpoints/);

    const rule = of("PrometheusRule");
    const rules = (rule.spec as { groups: { rules: { for?: string }[] }[] }).groups[0]?.rules ?? [];
    (rules[0] as { for?: string }).for = "15 minutes";
    expect(refusal(() => dryRunApply([rule]))).toMatch(/spec\.groups\[0\]\.rules\[0\]\.for/);

    const serviceMonitor = of("ServiceMonitor");
    (serviceMonitor.spec as { endpoints: { interval: string }[] }).endpoints[0] = { interval: "30 seconds" };
    expect(refusal(() => dryRunApply([serviceMonitor]))).toMatch(/spec\.endpoints\[0\]\.interval/);
  });

  it("scrape the port the operator gives the injected sidecar, native or plain, whatever the pod's labels", () => {
    const podMonitor = monitoringObjects(ALL_ON).find((m) => m.kind === "PodMonitor") as Manifest;
    const spec = podMonitor.spec as {
      selector: Record<string, unknown>;
      namespaceSelector: { any?: boolean };
      podMetricsEndpoints: { port: string; path: string }[];
    };
    // An empty selector selects every pod: the port name alone picks the sidecars.
    expect(spec.selector).toEqual({});
    expect(spec.namespaceSelector).toEqual({ any: true });
    expect(spec.podMetricsEndpoints.map((e) => e.path)).toEqual(["/metrics"]);
    const port = spec.podMetricsEndpoints[0]?.port;

    const web = workload("web", { templateLabels: { app: "web", tier: "front" } });
    const plan = planWorkload(web, [sidecarFlag("limits", { app: "web" }, 8600)], CLUSTER);
    const settings = {
      image: "example/svc:1",
      resources: { requests: { cpu: "10m", memory: "32Mi" }, limits: { cpu: "100m", memory: "64Mi" } },
    };
    for (const nativeSidecar of [true, false]) {
      const pod = (
        workloadApplyConfiguration(web, plan, settings, { nativeSidecar }) as unknown as {
          spec: { template: { spec: Record<string, { name: string; ports?: { name: string }[] }[]> } };
        }
      ).spec.template.spec;
      const injected = [...(pod["initContainers"] ?? []), ...(pod["containers"] ?? [])];
      // Prometheus's pod discovery makes a target of every container port, init containers' too.
      expect(injected.flatMap((c) => c.ports ?? []).map((p) => p.name)).toEqual([port]);
    }
  });
});

describe("the chart's PromQL against Prometheus's parser", () => {
  it("parses every alert and dashboard expression, and reads the metric names the tokenizer reads", () => {
    const manifests = manifestsOf(
      helm([
        "template",
        "p",
        CHART,
        "--set",
        "grafanaDashboard.enabled=true",
        "--set",
        "prometheusRule.enabled=true",
      ]),
    );
    const variables = dashboardOf(manifests)?.templating.list ?? [];
    const expressions = chartExpressions(manifests);
    expect(expressions.filter((e) => e.where.startsWith("alert ")).length).toBe(7);
    expect(expressions.length).toBeGreaterThan(30);
    const results = parse(expressions.map((e) => interpolate(e.expr, variables)));
    expect(results.length).toBe(expressions.length);
    const failures = expressions.flatMap(({ where }, i) => {
      const error = results[i]?.error ?? "no answer";
      return error === "" ? [] : [`${where}: ${error}`];
    });
    expect(failures).toEqual([]);
    // The name check of helm-observability.test.ts relies on the tokenizer; Prometheus agrees with it.
    const disagreements = expressions.flatMap(({ where, expr }, i) => {
      const parsed = results[i]?.metrics ?? [];
      const tokenized = metricNames(expr);
      return parsed.join() === tokenized.join()
        ? []
        : [`${where}: parser ${parsed.join()} tokenizer ${tokenized.join()}`];
    });
    expect(disagreements).toEqual([]);
  });

  it("reports what Prometheus refuses: a broken expression, an experimental function, a Grafana variable left in", () => {
    const [good, broken, experimental, variable] = parse([
      'sum by (cluster) (rate(svc_operator_reconciles_total{outcome="error"}[10m])) > 0',
      "sum by (cluster (svc_operator_leader)",
      "limitk(1, svc_operator_leader)",
      "rate(svc_api_logins_total[$__rate_interval])",
    ]);
    expect(good).toEqual({ error: "", metrics: ["svc_operator_reconciles_total"] });
    expect(broken?.error).toMatch(/parse error/);
    expect(experimental?.error).toMatch(/experimental/);
    expect(variable?.error).toMatch(/parse error/);
    expect(() => interpolate("rate(x[$unknown])", [])).toThrow(/unknown Grafana variable/);
  });
});
