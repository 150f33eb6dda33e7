// The chart's Grafana dashboard and PrometheusRule (grafanaDashboard.enabled, prometheusRule.enabled)
// against what the processes really export: every metric name in every panel, variable and alert
// expression must be a series of the operator's, the API's or the sidecar's own registry, built by
// the factories the processes call. A renamed metric then fails here instead of leaving an empty
// panel or an alert that can never fire. The dashboard's ConfigMap goes through the real
// kube-apiserver (server dry-run); the PrometheusRule, ServiceMonitor and PodMonitor go through it
// with Prometheus Operator's CRDs, and every expression through Prometheus's own parser, in
// helm-observability-schemas.test.ts.
import { describe, expect, it } from "vitest";
import { createMetrics } from "../../packages/api/src/metrics.ts";
import { createOperatorMetrics } from "../../packages/operator/src/metrics.ts";
import { createRegistry } from "../../packages/sidecar/src/metrics.ts";
import { newStats } from "../../packages/sidecar/src/stats.ts";
import {
  alertRules,
  chartExpressions,
  dashboardOf,
  manifestsOf,
  panelsOf,
} from "../support/chart-expressions.ts";
import { CHART, helmSession } from "../support/helm.ts";
import { testKubeConfig, testNamespace } from "../support/kube.ts";
import { metricNames } from "../support/promql.ts";

const kc = testKubeConfig();
const { helm, kubectl } = helmSession();

/** Series names a registry's exposition declares: a histogram's as _bucket/_sum/_count, a summary's with _sum/_count. */
function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name = "", type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (type === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) names.add(name + suffix);
    else if (type === "summary") for (const suffix of ["", "_sum", "_count"]) names.add(name + suffix);
    else names.add(name);
  }
  return names;
}

/** Each process's registry, made as the process makes it, read through its exposition. */
async function exportedSeries(): Promise<Set<string>> {
  const operator = createOperatorMetrics(
    () => ({ depth: 0, delayed: 0 }),
    () => [{ cluster: "local", kind: "Deployment", objects: 1 }],
    () => 1,
  );
  const api = createMetrics();
  const sidecar = await createRegistry({ stats: newStats(), flags: () => 0, subscribers: () => 0 });
  const texts = await Promise.all([operator.registry.metrics(), api.registry.metrics(), sidecar.metrics()]);
  return new Set(texts.flatMap((text) => [...exportedNames(text)]));
}

function renderChart(namespace: string) {
  return manifestsOf(
    helm([
      "template",
      `o-${namespace}`,
      CHART,
      "-n",
      namespace,
      "--set",
      "grafanaDashboard.enabled=true",
      "--set",
      "prometheusRule.enabled=true",
    ]),
  );
}

describe("metricNames", () => {
  it("keeps metric names and skips functions, aggregations, label lists, matchers, ranges, numbers and strings", () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (le, controller) (rate(controller_runtime_reconcile_time_seconds_bucket{cluster=~"$cluster", kind!="a}b"}[$__rate_interval])))',
      ),
    ).toEqual(["controller_runtime_reconcile_time_seconds_bucket"]);
    expect(
      metricNames(
        "max(svc_operator_clusters_registered) > (sum without (pod) (svc_operator_clusters_held offset 5m) or vector(0))",
      ),
    ).toEqual(["svc_operator_clusters_held", "svc_operator_clusters_registered"]);
    expect(metricNames("a * on (x) group_left (y) b + ignoring(z) c and bool d unless 1e-3 > 0x1F")).toEqual([
      "a",
      "b",
      "c",
      "d",
    ]);
    expect(
      metricNames('label_replace(up, "dst", "$1", "src", "(.*)") / {__name__="x:rate5m", job="j"} @ start()'),
    ).toEqual(["up", "x:rate5m"]);
    expect(metricNames('sum(m[1h:5m]) # a comment naming not_a_metric\n + count_values("v", n)')).toEqual([
      "m",
      "n",
    ]);
  });

  it("refuses what it cannot read rather than guessing", () => {
    expect(() => metricNames('m{job="x}')).toThrow(/unterminated/);
    expect(() => metricNames("m ; n")).toThrow(/unexpected/);
  });
});

describe("the chart's dashboard and alerts", () => {
  it("name only metrics the processes export, and the API server accepts the dashboard's labelled ConfigMap", async () => {
    const namespace = await testNamespace(kc, "helm-obs");
    const manifests = renderChart(namespace);
    const exported = await exportedSeries();
    // The registries really carry the process prefix on prom-client's defaults (not the sidecar's).
    expect(exported).toContain("svc_operator_process_resident_memory_bytes");
    expect(exported).toContain("svc_api_process_resident_memory_bytes");

    const configMap = manifests.find(
      (m) => m.kind === "ConfigMap" && m.metadata.name === "svc-grafana-dashboard",
    );
    expect(configMap?.metadata.labels?.["grafana_dashboard"]).toBe("1");
    const dashboard = dashboardOf(manifests);
    const variables = dashboard?.templating.list ?? [];
    expect(variables.find((v) => v.name === "datasource")?.type).toBe("datasource");
    for (const panel of panelsOf(dashboard?.panels ?? [])) {
      if (panel.type === "row") continue;
      expect(panel.targets?.length, `panel ${panel.title ?? "?"}`).toBeGreaterThan(0);
      // Every query goes to the data source the viewer picks, never to a fixed one.
      for (const target of panel.targets ?? []) {
        expect(target.datasource?.uid, `panel ${panel.title ?? "?"}`).toBe("${datasource}");
      }
    }

    const rules = alertRules(manifests);
    expect(rules.map((r) => r.alert).sort()).toEqual([
      "SvcApiErrors",
      "SvcAuditWriteFailing",
      "SvcClusterNotConnected",
      "SvcClusterWithoutOwner",
      "SvcDeliveryFailing",
      "SvcDeliveryRefused",
      "SvcOperatorNotActing",
    ]);
    for (const r of rules) {
      expect(["critical", "warning", "info"], r.alert).toContain(r.labels?.["severity"]);
      expect(r.annotations?.["summary"], r.alert).toBeTruthy();
      expect(r.annotations?.["description"], r.alert).toBeTruthy();
    }

    const expressions = chartExpressions(manifests);
    const unknown: string[] = [];
    for (const { where, expr } of expressions) {
      const names = metricNames(expr);
      expect(names.length, `${where} names no metric: ${expr}`).toBeGreaterThan(0);
      for (const name of names) if (!exported.has(name)) unknown.push(`${where}: ${name}`);
    }
    expect(unknown).toEqual([]);
    expect(expressions.length).toBeGreaterThan(30);

    kubectl(
      ["apply", "--server-side", "--field-manager=helm-test", "--dry-run=server", "-f", "-"],
      JSON.stringify(configMap),
    );
  });

  it("puts the dashboard's label and the alerts' extra labels where the values say", () => {
    const rendered = helm([
      "template",
      "x",
      CHART,
      "--set",
      "grafanaDashboard.enabled=true",
      "--set",
      "grafanaDashboard.label.name=example.com/dashboard",
      "--set",
      "grafanaDashboard.label.value=svc",
      "--set",
      "prometheusRule.enabled=true",
      "--set",
      "prometheusRule.labels.release=monitoring",
      "--set",
      "prometheusRule.alertLabels.team=platform",
      "--set",
      "prometheusRule.runbookBaseUrl=https://example.com/docs/",
    ]);
    const manifests = manifestsOf(rendered);
    const configMap = manifests.find(
      (m) => m.kind === "ConfigMap" && m.metadata.name === "svc-grafana-dashboard",
    );
    expect(configMap?.metadata.labels?.["example.com/dashboard"]).toBe("svc");
    const rule = manifests.find((m) => m.kind === "PrometheusRule");
    expect(rule?.metadata.labels?.["release"]).toBe("monitoring");
    const rules = alertRules(manifests);
    for (const r of rules) expect(r.labels?.["team"], r.alert).toBe("platform");
    expect(rules.find((r) => r.alert === "SvcClusterNotConnected")?.annotations?.["runbook_url"]).toBe(
      "https://example.com/docs/troubleshooting.md#a-cluster-is-not-connected",
    );
    // Off by default: neither is rendered.
    expect(helm(["template", "x", CHART])).not.toMatch(/kind: PrometheusRule|svc-grafana-dashboard/);
  });
});
