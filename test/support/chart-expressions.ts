// The chart's monitoring objects as its tests read them: every PromQL expression of the Grafana
// dashboard (panels and query variables) and of the PrometheusRule, collected in one place so that
// the metric-name check and the parser check (test/e2e/helm-observability*.test.ts) can never
// look at different sets.
import { parseAllDocuments } from "yaml";

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  spec?: Record<string, unknown>;
}
export interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
export interface Panel {
  title?: string;
  type: string;
  targets?: { expr?: string; datasource?: { uid?: string } }[];
  panels?: Panel[];
}
export interface Variable {
  name: string;
  type: string;
  query?: string | { query?: string };
}
export interface Dashboard {
  panels: Panel[];
  templating: { list: Variable[] };
}
export interface Expression {
  /** Where it stands: `panel "…"`, `variable …` or `alert …`. */
  where: string;
  expr: string;
}

/** The documents of `helm template` output. */
export function manifestsOf(rendered: string): Manifest[] {
  return parseAllDocuments(rendered)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((doc): doc is Manifest => doc !== null);
}

/** Every panel, those inside rows included. */
export function panelsOf(panels: Panel[]): Panel[] {
  return panels.flatMap((panel) => [panel, ...panelsOf(panel.panels ?? [])]);
}

/** A Grafana variable query's PromQL: label_values(selector, label) and query_result(expr) hold one. */
export function variableExpr(query: string): string {
  const labelValues = /^label_values\((.*),\s*[a-zA-Z_]\w*\s*\)$/s.exec(query.trim());
  if (labelValues) return labelValues[1] ?? "";
  const queryResult = /^query_result\((.*)\)$/s.exec(query.trim());
  return queryResult?.[1] ?? query;
}

/** The dashboard in the chart's ConfigMap svc-grafana-dashboard, or undefined without one. */
export function dashboardOf(manifests: Manifest[]): Dashboard | undefined {
  const configMap = manifests.find(
    (m) => m.kind === "ConfigMap" && m.metadata.name === "svc-grafana-dashboard",
  );
  const json = configMap?.data?.["svc.json"];
  return json === undefined ? undefined : (JSON.parse(json) as Dashboard);
}

/** The alerting rules of the chart's PrometheusRule(s). */
export function alertRules(manifests: Manifest[]): Rule[] {
  return manifests
    .filter((m) => m.kind === "PrometheusRule")
    .flatMap((m) => (m.spec as { groups: { rules: Rule[] }[] }).groups.flatMap((group) => group.rules));
}

/** Every expression of the dashboard's panels and query variables and of the alerts. */
export function chartExpressions(manifests: Manifest[]): Expression[] {
  const dashboard = dashboardOf(manifests);
  const expressions: Expression[] = [];
  for (const panel of panelsOf(dashboard?.panels ?? [])) {
    for (const target of panel.targets ?? []) {
      expressions.push({ where: `panel "${panel.title ?? "?"}"`, expr: target.expr ?? "" });
    }
  }
  for (const variable of (dashboard?.templating.list ?? []).filter((v) => v.type === "query")) {
    const query = typeof variable.query === "string" ? variable.query : (variable.query?.query ?? "");
    expressions.push({ where: `variable ${variable.name}`, expr: variableExpr(query) });
  }
  for (const rule of alertRules(manifests))
    expressions.push({ where: `alert ${rule.alert}`, expr: rule.expr });
  return expressions;
}
