import { readFile } from "node:fs/promises";
import { describeErrors } from "@svc/core";
import type { Environment } from "@svc/core/schema/settings";
import { apiRequest } from "../flags/client.ts";
import { parseCliSettings, resolveConnection, tokenPath } from "../flags/connection.ts";
import { readSavedLogin } from "../flags/store.ts";
import { FLAGS_USAGE, parseFlagsArguments, type ApiSettings, type FlagsRequest } from "./flags-arguments.ts";

async function run(request: FlagsRequest, api: ApiSettings): Promise<string> {
  const query = new URLSearchParams({ clusterId: request.cluster, namespace: request.namespace }).toString();
  if (request.action === "export") {
    const exported = await apiRequest<unknown>(api, "GET", `/api/v1/flags/export?${query}`);
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
    api,
    "POST",
    `/api/v1/flags/import?${query}`,
    body,
  );
  const verb = request.dryRun ? "would create" : "created";
  return flags
    .map((f) => `${verb} ${request.namespace}/${f.name}${f.key === f.name ? "" : ` (key ${f.key})`}\n`)
    .join("");
}

/**
 * Without --token or SVC_TOKEN, import and export use the token of `svc flags login` too (only
 * for the server it was issued by), by handing it to their parser as the environment would.
 */
async function withSavedLogin(args: readonly string[], env: Environment): Promise<Environment> {
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

/**
 * `svc flags <verb>`: import and export here (exit 2 on a bad command line, 1 when the API
 * refuses or is unreachable), every other verb in ../flags/run.ts. `commands`: svc's command
 * names, for the completion scripts.
 */
export async function runFlags(args: string[], commands: readonly string[] = []): Promise<void> {
  const [action] = args;
  if (action !== "import" && action !== "export") {
    process.exitCode = await (await import("../flags/run.ts")).runFlagVerb(args, commands);
    return;
  }
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(FLAGS_USAGE);
    return;
  }
  const parsed = parseFlagsArguments(args, await withSavedLogin(args, process.env));
  if (!parsed.ok) {
    process.stderr.write(`svc flags: ${describeErrors(parsed.errors)}\n\n${FLAGS_USAGE}`);
    process.exitCode = 2;
    return;
  }
  const { request, api } = parsed.value;
  try {
    process.stdout.write(await run(request, api));
  } catch (error) {
    // fetch's own message is "fetch failed"; its cause says why (refused, reset, timed out).
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : "";
    const message = error instanceof Error ? error.message : String(error);
    const why = cause === "" || message.includes(cause) ? message : `${message}: ${cause}`;
    process.stderr.write(`svc flags ${request.action}: ${why}\n`);
    process.exitCode = 1;
  }
}
