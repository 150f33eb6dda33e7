// Whose X-Forwarded-For the chart's API and dashboard believe: an API started with the env the
// chart renders records the address that connected, not a header anyone can write; svc's own
// dashboard is believed through the proxy secret both get from one Secret; ingress controllers
// only when listed (values api.trustedProxies, dashboard.trustedProxies).
import { Agent, request } from "node:http";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { parseApiConfig } from "../../packages/api/src/config.ts";
import { parseDashboardConfig } from "../../packages/dashboard/src/config.ts";
import { ADMIN_PASSWORD, BACKENDS, TestApi, testConfig } from "../../packages/api/test/support/harness.ts";
import { CHART, helmSession } from "../support/helm.ts";

const { helm } = helmSession();

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}

/** The manifests `template` renders with `values`. */
function render(template: string, ...values: string[]): Record<string, unknown>[] {
  const text = helm([
    "template",
    "x",
    CHART,
    "--show-only",
    template,
    ...values.flatMap((v) => ["--set", v]),
  ]);
  return parseAllDocuments(text).map((doc) => doc.toJS() as Record<string, unknown>);
}

/** The first container's env of the Deployment `template` renders. */
function envOf(template: string, ...values: string[]): EnvVar[] {
  const deployment = render(template, ...values).find((doc) => doc["kind"] === "Deployment") as
    { spec: { template: { spec: { containers: { env: EnvVar[] }[] } } } } | undefined;
  const env = deployment?.spec.template.spec.containers[0]?.env;
  if (env === undefined) throw new Error(`no Deployment in ${template}`);
  return env;
}

/** The env as the process sees it: values, and those from the chart's own Secrets resolved. */
function environment(env: EnvVar[], secrets: Record<string, Record<string, string>>): Record<string, string> {
  const resolved: Record<string, string> = {};
  for (const variable of env) {
    const ref = variable.valueFrom?.secretKeyRef;
    const value = ref === undefined ? variable.value : secrets[ref.name]?.[ref.key];
    if (value !== undefined) resolved[variable.name] = value;
  }
  return resolved;
}

/** The chart's Secrets, decoded. */
function chartSecrets(): Record<string, Record<string, string>> {
  const secrets: Record<string, Record<string, string>> = {};
  for (const doc of render("templates/admin-secret.yaml").concat(render("templates/proxy-secret.yaml"))) {
    const { metadata, data } = doc as { metadata: { name: string }; data: Record<string, string> };
    secrets[metadata.name] = Object.fromEntries(
      Object.entries(data).map(([key, value]) => [key, Buffer.from(value, "base64").toString("utf8")]),
    );
  }
  return secrets;
}

function wrongLogin(url: string, headers: Record<string, string>): Promise<number> {
  const body = JSON.stringify({ username: "admin", password: "a-wrong-password" });
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/api/v1/auth/login`,
      {
        method: "POST",
        agent: new Agent(),
        headers: { "content-type": "application/json", "content-length": String(body.length), ...headers },
      },
      (res) => {
        res.resume();
        res.on("end", () => {
          resolve(res.statusCode ?? 0);
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function refusedSources(api: TestApi): Promise<string[]> {
  const token = await api.login("admin", ADMIN_PASSWORD);
  const reply = await api.call("GET", "/api/v1/audit?action=login_failed&limit=100", { token });
  return (reply.json as { sourceIp: string }[]).map((e) => e.sourceIp).sort();
}

/** An API on SQLite with the chart's proxy settings (parsed from the rendered env). */
async function withChartApi(env: Record<string, string>, work: (api: TestApi) => Promise<void>) {
  const parsed = parseApiConfig(env);
  if (!parsed.ok) throw new Error(parsed.errors.map((e) => `${e.field}: ${e.message}`).join("; "));
  const sqlite = BACKENDS.find((backend) => backend.name === "sqlite");
  if (sqlite === undefined) throw new Error("no SQLite backend");
  const db = await sqlite.open();
  const { trustProxy, proxySecret } = parsed.value;
  const api = await TestApi.start({ ...testConfig(db.database), trustProxy, proxySecret });
  try {
    await work(api);
  } finally {
    await api.close();
    await db.remove();
  }
}

describe("the chart's trust in X-Forwarded-For", () => {
  it("by default, records the address that connected, not a forged header", async () => {
    const env = environment(envOf("templates/api.yaml"), chartSecrets());
    await withChartApi(env, async (api) => {
      expect(await wrongLogin(api.url, { "x-forwarded-for": "203.0.113.9" })).toBe(401);
      expect(await refusedSources(api)).toEqual(["127.0.0.1"]);
    });
  });

  it("believes svc's own dashboard, which sends the proxy secret both get from one Secret", async () => {
    const secrets = chartSecrets();
    const apiEnv = environment(envOf("templates/api.yaml"), secrets);
    const dashboardEnv = environment(envOf("templates/dashboard.yaml"), secrets);
    const dashboard = parseDashboardConfig(dashboardEnv);
    if (!dashboard.ok) throw new Error("the dashboard's env does not parse");
    const secret = dashboard.value.proxySecret ?? "";
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(apiEnv["SVC_PROXY_SECRET"]).toBe(secret);
    await withChartApi(apiEnv, async (api) => {
      const forwarded = { "x-forwarded-for": "198.51.100.20" };
      expect(await wrongLogin(api.url, { ...forwarded, "x-svc-proxy-secret": secret })).toBe(401);
      expect(await wrongLogin(api.url, { ...forwarded, "x-svc-proxy-secret": `${secret}x` })).toBe(401);
      expect(await refusedSources(api)).toEqual(["127.0.0.1", "198.51.100.20"]);
    });
  });

  it("believes the ingress controllers listed in values, in the dashboard and the API", () => {
    const dashboard = parseDashboardConfig(
      environment(
        envOf("templates/dashboard.yaml", "dashboard.trustedProxies={10.42.0.0/16}"),
        chartSecrets(),
      ),
    );
    expect(dashboard.ok && dashboard.value.trustedProxies).toEqual(["10.42.0.0/16"]);
    const api = parseApiConfig(
      environment(envOf("templates/api.yaml", "api.trustedProxies={10.0.0.1,fd00::/8}"), chartSecrets()),
    );
    expect(api.ok && api.value.trustProxy).toEqual(["10.0.0.1", "fd00::/8"]);
  });
});
