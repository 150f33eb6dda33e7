// The command lines of `svc flags import|export`, the verbs of the first version, read into
// typed requests (pure: unit-tested) from the options the one parser read (parse.ts). As in
// their first version the connection is part of the command line: --server and --token, else
// SVC_API_URL and SVC_TOKEN (into which the shell puts the login's), and every problem, of the
// options and of the connection, is listed at once.
import { fieldPath, type Delivery, type FieldError } from "@svc/core";
import { settingsReader, type Environment } from "@svc/core/schema/settings";
import { DEFAULT_SERVER, normalizeServer, type Connection } from "./connection.ts";
import { DELIVERY_OPTIONS, type FlagdVerb } from "./flagd-verbs.ts";
import { parseLabels, type OptionValues } from "./names.ts";

export type FlagdRequest =
  | {
      verb: "import";
      file: string;
      namespace: string;
      cluster: string;
      delivery: Delivery;
      dryRun: boolean;
    }
  | { verb: "export"; namespace: string; cluster: string };

/** In the order import's message has always named them (core's DELIVERY_KINDS has its own). */
const DELIVERIES = ["sidecar", "envVar", "configMap"] as const;

function deliveryOf(values: ReadonlyMap<string, string>, errors: FieldError[]): Delivery {
  const kind = values.get("--delivery") ?? "sidecar";
  const matchLabels = parseLabels(values.get("--selector") ?? "");
  if (matchLabels === undefined) errors.push({ field: "--selector", message: "is required, as k=v[,k=v]" });
  const selector = { matchLabels: matchLabels ?? {} };
  if (kind === "sidecar") return { sidecar: { selector } };
  if (kind === "envVar") return { envVar: { selector } };
  if (kind !== "configMap") {
    errors.push({ field: "--delivery", message: `must be one of ${DELIVERIES.join(", ")}` });
    return { sidecar: { selector } };
  }
  const configMapName = values.get("--config-map");
  const key = values.get("--key");
  if (configMapName === undefined || key === undefined)
    errors.push({ field: "--config-map", message: "and --key are required with --delivery configMap" });
  return { configMap: { configMapName: configMapName ?? "", key: key ?? "", selector } };
}

/** The server and token: the options win over SVC_API_URL and SVC_TOKEN. */
function connectionOf(
  verb: FlagdVerb,
  values: ReadonlyMap<string, string>,
  env: Environment,
  errors: FieldError[],
): Connection {
  const read = settingsReader(env);
  const connection: Connection = {
    server: normalizeServer(values.get("--server") ?? read.text("SVC_API_URL", DEFAULT_SERVER)),
    token: values.get("--token") ?? read.text("SVC_TOKEN", ""),
  };
  const overrideReason = values.get("--override-reason");
  if (overrideReason !== undefined) {
    if (verb === "import") connection.overrideReason = overrideReason;
    else errors.push({ field: "--override-reason", message: "is an option of import only" });
  }
  if (!URL.canParse(connection.server)) errors.push({ field: "--server", message: "must be a URL" });
  if (connection.token === "")
    errors.push({
      field: "--token",
      message: "is required (or SVC_TOKEN): log in with POST /api/v1/auth/login",
    });
  return connection;
}

/** The request and its connection; every problem goes to `errors`, by the option it concerns. */
export function flagdRequestOf(
  verb: FlagdVerb,
  { values, positional }: OptionValues,
  errors: FieldError[],
  env: Environment,
): { request: FlagdRequest; connection: Connection } {
  const namespace = values.get("--namespace") ?? "";
  const cluster = values.get("--cluster") ?? "";
  for (const [option, value] of [
    ["--namespace", namespace],
    ["--cluster", cluster],
  ] as const)
    if (value === "") errors.push({ field: option, message: "is required" });
  const connection = connectionOf(verb, values, env, errors);
  if (verb === "export") {
    for (const { name } of DELIVERY_OPTIONS)
      if (values.has(name)) errors.push({ field: name, message: "is an option of import only" });
    if (positional.length > 0)
      errors.push({ field: positional[0] ?? "", message: "export takes no file: it writes to stdout" });
    return { request: { verb, namespace, cluster }, connection };
  }
  const delivery = deliveryOf(values, errors);
  if (positional.length !== 1)
    errors.push({ field: fieldPath("", "<file>"), message: "one flagd file is required" });
  const file = positional[0] ?? "";
  return {
    request: { verb, file, namespace, cluster, delivery, dryRun: values.has("--dry-run") },
    connection,
  };
}
