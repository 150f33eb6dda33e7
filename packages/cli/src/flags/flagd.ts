// The shell of `svc flags import|export`, the verbs of the first version: the environment they
// are parsed with, their requests, and their exit codes (0 done, 1 on any failure, a refusal of
// the API's too; bad usage is 2, said by run.ts).
import { readFile } from "node:fs/promises";
import type { Environment } from "@svc/core/schema/settings";
import { apiRequest, reason } from "./client.ts";
import { EXIT, parseCliSettings, resolveConnection, tokenPath, type Connection } from "./connection.ts";
import type { FlagdRequest } from "./flagd-parse.ts";
import { isFlagdVerb } from "./flagd-verbs.ts";
import { asksForHelp } from "./parse.ts";
import { readSavedLogin } from "./store.ts";

/**
 * The environment a command line is parsed with. Without --token or SVC_TOKEN, import and export
 * use the token of `svc flags login` too (only for the server it was issued by), by handing it
 * to their parser as the environment would; the token file is not read for --help.
 */
export async function flagdEnvironment(args: readonly string[], env: Environment): Promise<Environment> {
  if (!isFlagdVerb(args[0] ?? "") || asksForHelp(args)) return env;
  if (args.includes("--token") || (env["SVC_TOKEN"] ?? "") !== "") return env;
  const settings = parseCliSettings(env);
  if (!settings.ok) return env;
  const saved = await readSavedLogin(tokenPath(settings.value));
  const at = args.indexOf("--server");
  const server = at >= 0 ? args[at + 1] : undefined;
  const connection = resolveConnection(server === undefined ? {} : { server }, settings.value, saved);
  if (!connection.ok) return env;
  return { ...env, SVC_API_URL: connection.value.server, SVC_TOKEN: connection.value.token };
}

async function send(request: FlagdRequest, connection: Connection): Promise<string> {
  const query = new URLSearchParams({ clusterId: request.cluster, namespace: request.namespace }).toString();
  if (request.verb === "export") {
    const exported = await apiRequest<unknown>(connection, "GET", `/api/v1/flags/export?${query}`);
    return `${JSON.stringify(exported, null, 2)}\n`;
  }
  let file: unknown;
  try {
    file = JSON.parse(await readFile(request.file, "utf8"));
  } catch (error) {
    throw new Error(
      `cannot read ${request.file} as JSON: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const body = { delivery: request.delivery, file, dryRun: request.dryRun };
  const { flags } = await apiRequest<{ flags: { name: string; key: string }[] }>(
    connection,
    "POST",
    `/api/v1/flags/import?${query}`,
    body,
  );
  const verb = request.dryRun ? "would create" : "created";
  return flags
    .map((f) => `${verb} ${request.namespace}/${f.name}${f.key === f.name ? "" : ` (key ${f.key})`}\n`)
    .join("");
}

/** Runs import or export; returns its exit code. */
export async function runFlagd(request: FlagdRequest, connection: Connection): Promise<number> {
  try {
    process.stdout.write(await send(request, connection));
    return EXIT.ok;
  } catch (error) {
    process.stderr.write(`svc flags ${request.verb}: ${reason(error)}\n`);
    return EXIT.error;
  }
}
