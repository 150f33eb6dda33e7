// The shell of `svc flags <verb>`: parse (pure), resolve the connection (pure), call the API,
// print, and turn the outcome into the exit code (docs/cli.md): 0 done, 1 error, 2 bad usage,
// 3 not found, 4 conflict (import and export, of the first version: 1 on any failure, flagd.ts).
import { describeErrors } from "@svc/core";
import { apply, diff } from "./apply.ts";
import { ExitError, failure } from "./client.ts";
import { bashCompletion, zshCompletion } from "./completion.ts";
import { EXIT, parseCliSettings, resolveConnection, tokenPath } from "./connection.ts";
import { create, get, list, remove, set, toggle } from "./crud.ts";
import { flagdEnvironment, runFlagd } from "./flagd.ts";
import { FLAGD_USAGE } from "./flagd-verbs.ts";
import { login } from "./login.ts";
import { parseVerbCommand, type ParsedCommand } from "./parse.ts";
import { runRolloutVerb } from "./rollouts.ts";
import { readSavedLogin } from "./store.ts";
import { flagsUsage, rolloutUsage, verbHelp } from "./verbs.ts";

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
    case "rollout watch":
      return stoppable((signal) => runRolloutVerb(api, request, output, { ...STDIO, signal }));
    default:
      return runRolloutVerb(api, request, output, { ...STDIO, signal: new AbortController().signal });
  }
}

const STDIO = {
  write: (text: string) => process.stdout.write(text),
  warn: (text: string) => process.stderr.write(text),
};

/** The exit code of a process stopped by a signal, as a shell reports it: 128 + its number. */
const STOP_SIGNALS = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * Runs `work` (watch) with a signal that Ctrl-C or SIGTERM aborts, its reason the exit code to stop
 * with, so it ends its request and says where the plan is instead of dying mid-line.
 */
async function stoppable<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const handlers = Object.entries(STOP_SIGNALS).map(([name, code]) => {
    const handler = () => {
      controller.abort(code);
    };
    process.on(name, handler);
    return () => {
      process.off(name, handler);
    };
  });
  try {
    return await work(controller.signal);
  } finally {
    for (const remove of handlers) remove();
  }
}

/** Runs one verb, any of `svc flags`; returns its exit code. `commands`: svc's command names, for completion. */
export async function runFlagVerb(args: readonly string[], commands: readonly string[]): Promise<number> {
  const parsed = parseVerbCommand(args, await flagdEnvironment(args, process.env));
  if (parsed.kind === "flagd usage") {
    process.stderr.write(`svc flags: ${describeErrors(parsed.errors)}\n\n${FLAGD_USAGE}`);
    return EXIT.usage;
  }
  if (parsed.kind === "flagd run") return runFlagd(parsed.request, parsed.connection);
  const verb =
    parsed.kind === "run"
      ? parsed.request.verb
      : parsed.kind === "usage"
        ? (parsed.verb ?? parsed.group)
        : undefined;
  const command = verb === undefined ? ["svc flags", ...args.slice(0, 1)].join(" ") : `svc flags ${verb}`;
  if (parsed.kind === "help") {
    process.stdout.write(parsed.text);
    return EXIT.ok;
  }
  if (parsed.kind === "usage") {
    const help =
      parsed.verb !== undefined
        ? verbHelp(parsed.verb)
        : parsed.group !== undefined
          ? rolloutUsage()
          : flagsUsage();
    process.stderr.write(`${command}: ${describeErrors(parsed.errors)}\n\n${help}`);
    return EXIT.usage;
  }
  try {
    process.stdout.write(await execute(parsed, commands));
    return EXIT.ok;
  } catch (error) {
    return failure(command, error);
  }
}
