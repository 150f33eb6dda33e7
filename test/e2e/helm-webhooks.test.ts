// The chart's webhooks block (values.yaml `webhooks:`): what it renders into the API's env, that
// the API reads those variables as meant, that its defaults are the API's own (and then nothing
// is rendered), and that the schema refuses a bad value by name.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_WEBHOOK_CONFIG, parseApiConfig } from "../../packages/api/src/config.ts";
import { parse, parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { CHART, helmSession } from "../support/helm.ts";

const { helm } = helmSession();

interface EnvVar {
  name: string;
  value?: string;
}

/** The env of the API's container as the chart renders it with `values`. */
function apiEnv(...values: string[]): EnvVar[] {
  const rendered = helm([
    "template",
    "x",
    CHART,
    "--show-only",
    "templates/api.yaml",
    ...values.flatMap((v) => ["--set", v]),
  ]);
  const deployment = parseAllDocuments(rendered)
    .map((doc) => doc.toJS() as { kind?: string; spec?: { template: { spec: { containers: unknown[] } } } })
    .find((doc) => doc.kind === "Deployment");
  const container = deployment?.spec?.template.spec.containers[0] as { env: EnvVar[] } | undefined;
  if (container === undefined) throw new Error("no API Deployment rendered");
  return container.env;
}

const webhookEnv = (env: EnvVar[]) => env.filter((e) => e.name.startsWith("SVC_WEBHOOK_"));

/** The API's webhook settings from a rendered env (variables from Secrets left out). */
function webhookConfigOf(env: EnvVar[]) {
  const parsed = parseApiConfig(
    Object.fromEntries(env.flatMap((e) => (e.value === undefined ? [] : [[e.name, e.value]]))),
  );
  if (!parsed.ok) throw new Error(parsed.errors.map((e) => `${e.field}: ${e.message}`).join("; "));
  return parsed.value.webhooks;
}

function refusal(value: string): string {
  try {
    helm(["template", "x", CHART, "--set", value]);
  } catch (error) {
    return String((error as { stderr?: string }).stderr);
  }
  return "rendered";
}

describe("the chart's webhooks values", () => {
  it("default to the API's own settings, and then pass no variable", async () => {
    const values = parse(await readFile(join(CHART, "values.yaml"), "utf8")) as {
      webhooks: Record<string, unknown>;
    };
    const defaults = values.webhooks as {
      allowedNetworks: string[];
      timeout: string;
      retryMaxDelay: string;
      pollInterval: string;
      observedGrace: string;
    };
    expect(
      webhookConfigOf([
        { name: "SVC_WEBHOOK_ALLOWED_NETWORKS", value: defaults.allowedNetworks.join(",") },
        { name: "SVC_WEBHOOK_TIMEOUT", value: defaults.timeout },
        { name: "SVC_WEBHOOK_RETRY_MAX_DELAY", value: defaults.retryMaxDelay },
        { name: "SVC_WEBHOOK_POLL_INTERVAL", value: defaults.pollInterval },
        { name: "SVC_WEBHOOK_OBSERVED_GRACE", value: defaults.observedGrace },
      ]),
    ).toEqual(DEFAULT_WEBHOOK_CONFIG);
    expect(webhookEnv(apiEnv())).toEqual([]);
    // The template's own idea of the defaults is values.yaml's: set explicitly, still nothing.
    const explicit = Object.entries(defaults)
      .filter(([key]) => key !== "allowedNetworks")
      .map(([key, value]) => `webhooks.${key}=${String(value)}`);
    expect(webhookEnv(apiEnv(...explicit))).toEqual([]);
    expect(webhookConfigOf(apiEnv())).toEqual(DEFAULT_WEBHOOK_CONFIG);
  });

  it("passes the networks joined with commas and each changed duration, as the API reads them", () => {
    const env = apiEnv(
      "webhooks.allowedNetworks={10.96.0.0/12,fd00::/8}",
      "webhooks.timeout=30s",
      "webhooks.retryMaxDelay=1h",
      "webhooks.pollInterval=250ms",
      "webhooks.observedGrace=0s",
    );
    expect(webhookEnv(env)).toEqual([
      { name: "SVC_WEBHOOK_ALLOWED_NETWORKS", value: "10.96.0.0/12,fd00::/8" },
      { name: "SVC_WEBHOOK_OBSERVED_GRACE", value: "0s" },
      { name: "SVC_WEBHOOK_POLL_INTERVAL", value: "250ms" },
      { name: "SVC_WEBHOOK_RETRY_MAX_DELAY", value: "1h" },
      { name: "SVC_WEBHOOK_TIMEOUT", value: "30s" },
    ]);
    expect(webhookConfigOf(env)).toEqual({
      allowedNetworks: ["10.96.0.0/12", "fd00::/8"],
      timeoutMs: 30_000,
      retryMaxDelayMs: 3_600_000,
      pollIntervalMs: 250,
      observedGraceMs: 0,
    });
    // One changed value renders that one only.
    expect(webhookEnv(apiEnv("webhooks.pollInterval=200ms"))).toEqual([
      { name: "SVC_WEBHOOK_POLL_INTERVAL", value: "200ms" },
    ]);
  });

  it("refuses a bad value by name", () => {
    expect(refusal("webhooks.timeout=10")).toContain("at '/webhooks/timeout': got number, want string");
    expect(refusal("webhooks.pollInterval=1 second")).toContain("at '/webhooks/pollInterval'");
    expect(refusal("webhooks.allowedNetworks={internal}")).toContain(
      "at '/webhooks/allowedNetworks/0': 'internal' does not match pattern",
    );
    expect(refusal("webhooks.allowedNetworks=10.0.0.0/8")).toContain(
      "at '/webhooks/allowedNetworks': got string, want array",
    );
    expect(refusal("webhooks.timout=5s")).toContain(
      "at '/webhooks': additional properties 'timout' not allowed",
    );
  });
});
