// `svc flags import|export`'s command line, read into a typed request (pure: unit-tested).
import { fieldPath, type Delivery, type Validated } from "@svc/core";
import { settingsReader, type Environment } from "@svc/core/schema/settings";

import { DEFAULT_SERVER } from "../flags/connection.ts";

export { DEFAULT_SERVER };

export const FLAGS_USAGE = `usage:
  svc flags import <file> --namespace N --cluster C --selector k=v[,k=v]
                   [--delivery sidecar|envVar|configMap] [--config-map NAME --key KEY] [--dry-run]
                   [--override-reason TEXT]   (admin, into a protected cluster; audited)
  svc flags export --namespace N --cluster C [> file]
  both: [--server URL] [--token TOKEN]

import creates every flag of a flagd flag-definition file (JSON) in the namespace, or none (every
problem is listed); export prints the namespace's flags as a flagd file. docs/api-flags-clusters.md.
`;

/** The API server and the token of the caller: --server and --token, else the environment. */
export interface ApiSettings {
  server: string;
  token: string;
  /** import --override-reason: an admin's reason to import into a protected cluster. */
  overrideReason?: string;
}

/** SVC_API_URL and SVC_TOKEN (the options --server and --token win over them). */
export function parseFlagsSettings(env: Environment): Validated<ApiSettings> {
  const read = settingsReader(env);
  const server = read.text("SVC_API_URL", DEFAULT_SERVER);
  const token = read.text("SVC_TOKEN", "");
  if (read.errors.length > 0) return { ok: false, errors: [...read.errors] };
  return { ok: true, value: { server, token } };
}

export type FlagsRequest =
  | {
      action: "import";
      file: string;
      namespace: string;
      cluster: string;
      delivery: Delivery;
      dryRun: boolean;
    }
  | { action: "export"; namespace: string; cluster: string };

const VALUED = [
  "--namespace",
  "--cluster",
  "--selector",
  "--delivery",
  "--config-map",
  "--key",
  "--server",
  "--token",
  "--override-reason",
];
const DELIVERIES = ["sidecar", "envVar", "configMap"] as const;

/** "k=v,k=v" as labels, or undefined when a pair lacks its '='. */
function labels(text: string): Record<string, string> | undefined {
  const pairs = text.split(",").map((pair) => pair.split("="));
  if (pairs.some((pair) => pair.length !== 2 || pair[0] === "")) return undefined;
  return Object.fromEntries(pairs as [string, string][]);
}

function deliveryOf(options: Map<string, string>, errors: { field: string; message: string }[]): Delivery {
  const kind = options.get("--delivery") ?? "sidecar";
  const matchLabels = labels(options.get("--selector") ?? "");
  if (matchLabels === undefined) errors.push({ field: "--selector", message: "is required, as k=v[,k=v]" });
  const selector = { matchLabels: matchLabels ?? {} };
  if (kind === "sidecar") return { sidecar: { selector } };
  if (kind === "envVar") return { envVar: { selector } };
  if (kind !== "configMap") {
    errors.push({ field: "--delivery", message: `must be one of ${DELIVERIES.join(", ")}` });
    return { sidecar: { selector } };
  }
  const configMapName = options.get("--config-map");
  const key = options.get("--key");
  if (configMapName === undefined || key === undefined)
    errors.push({ field: "--config-map", message: "and --key are required with --delivery configMap" });
  return { configMap: { configMapName: configMapName ?? "", key: key ?? "", selector } };
}

/**
 * The request and the API settings a command line asks for: options win over the environment.
 * Every problem is listed, by the option it concerns.
 */
export function parseFlagsArguments(
  args: readonly string[],
  env: Environment,
): Validated<{ request: FlagsRequest; api: ApiSettings }> {
  const [action, ...rest] = args;
  const errors: { field: string; message: string }[] = [];
  const options = new Map<string, string>();
  const positional: string[] = [];
  let dryRun = false;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] ?? "";
    if (arg === "--dry-run" && action === "import") dryRun = true;
    else if (VALUED.includes(arg) && i + 1 < rest.length) options.set(arg, rest[++i] ?? "");
    else if (arg.startsWith("--")) errors.push({ field: arg, message: "is not an option of this command" });
    else positional.push(arg);
  }
  const namespace = options.get("--namespace") ?? "";
  const cluster = options.get("--cluster") ?? "";
  for (const [option, value] of [
    ["--namespace", namespace],
    ["--cluster", cluster],
  ] as const)
    if (value === "") errors.push({ field: option, message: "is required" });
  const settings = parseFlagsSettings(env);
  if (!settings.ok) errors.push(...settings.errors);
  const api: ApiSettings = {
    server: (options.get("--server") ?? (settings.ok ? settings.value.server : DEFAULT_SERVER)).replace(
      /\/+$/,
      "",
    ),
    token: options.get("--token") ?? (settings.ok ? settings.value.token : ""),
  };
  const overrideReason = options.get("--override-reason");
  if (overrideReason !== undefined) {
    if (action === "import") api.overrideReason = overrideReason;
    else errors.push({ field: "--override-reason", message: "is an option of import only" });
  }
  if (!URL.canParse(api.server)) errors.push({ field: "--server", message: "must be a URL" });
  if (api.token === "")
    errors.push({
      field: "--token",
      message: "is required (or SVC_TOKEN): log in with POST /api/v1/auth/login",
    });
  let request: FlagsRequest | undefined;
  if (action === "import") {
    const delivery = deliveryOf(options, errors);
    if (positional.length !== 1)
      errors.push({ field: fieldPath("", "<file>"), message: "one flagd file is required" });
    request = { action, file: positional[0] ?? "", namespace, cluster, delivery, dryRun };
  } else if (action === "export") {
    for (const option of ["--selector", "--delivery", "--config-map", "--key"])
      if (options.has(option)) errors.push({ field: option, message: "is an option of import only" });
    if (positional.length > 0)
      errors.push({ field: positional[0] ?? "", message: "export takes no file: it writes to stdout" });
    request = { action, namespace, cluster };
  } else
    errors.push({ field: "", message: `unknown action ${JSON.stringify(action ?? "")}: import or export` });
  return errors.length > 0 || request === undefined
    ? { ok: false, errors }
    : { ok: true, value: { request, api } };
}
