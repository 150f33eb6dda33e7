// The shell of `svc flags <verb>`: parse (pure), resolve the connection (pure), call the API,
// print, and turn the outcome into the exit code (docs/cli.md): 0 done, 1 error, 2 bad usage,
// 3 not found, 4 conflict.
import { describeErrors } from "@svc/core";
import { apply, diff } from "./apply.ts";
import { ApiError, ExitError } from "./client.ts";
import { bashCompletion, zshCompletion } from "./completion.ts";
import { EXIT, exitCodeOf, parseCliSettings, resolveConnection, tokenPath } from "./connection.ts";
import { create, get, list, remove, set, toggle } from "./crud.ts";
import { login } from "./login.ts";
import { parseVerbCommand, type ParsedCommand } from "./parse.ts";
import { readSavedLogin } from "./store.ts";
import { flagsUsage, verbHelp } from "./verbs.ts";

type Run = ParsedCommand & { kind: "run" };

async function execute({ request, output, connection: options }: Run, commands: readonly string[]) {
  if (request.verb === "completion")
    return request.shell === "bash" ? bashCompletion(commands) : zshCompletion(commands);
  const settings = parseCliSettings(process.env);
  if (!settings.ok) throw new ExitError(EXIT.usage, describeErrors(settings.errors));
  const saved = await readSavedLogin(tokenPath(settings.value));
  if (request.verb === "login") return login(request, options, settings.value, saved);
  const connection = resolveConnection(options, settings.value, saved);
  if (!connection.ok) throw new ExitError(EXIT.usage, describeErrors(connection.errors));
  const api = connection.value;
  switch (request.verb) {
    case "list":
      return list(api, request, output);
    case "get":
      return get(api, request, output);
    case "create":
      return create(api, request, output);
    case "set":
      return set(api, request, output);
    case "toggle":
      return toggle(api, request, output);
    case "delete":
      return remove(api, request, output);
    case "apply":
      return apply(api, request, output);
    case "diff":
      return diff(api, request, output);
  }
}

/** Why a call failed, in one line: fetch's own message is "fetch failed", its cause says why. */
function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : "";
  return cause === "" || message.includes(cause) ? message : `${message}: ${cause}`;
}

/** Runs one verb; returns its exit code. `commands`: svc's command names, for completion. */
export async function runFlagVerb(args: readonly string[], commands: readonly string[]): Promise<number> {
  const parsed = parseVerbCommand(args);
  const command = args[0] === undefined ? "svc flags" : `svc flags ${args[0]}`;
  if (parsed.kind === "help") {
    process.stdout.write(parsed.text);
    return EXIT.ok;
  }
  if (parsed.kind === "usage") {
    const help = parsed.verb === undefined ? flagsUsage() : verbHelp(parsed.verb);
    process.stderr.write(`${command}: ${describeErrors(parsed.errors)}\n\n${help}`);
    return EXIT.usage;
  }
  try {
    process.stdout.write(await execute(parsed, commands));
    return EXIT.ok;
  } catch (error) {
    process.stderr.write(`${command}: ${reason(error)}\n`);
    if (error instanceof ApiError) return exitCodeOf(error.status);
    if (error instanceof ExitError) return error.code;
    return EXIT.error;
  }
}
