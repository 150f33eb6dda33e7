// A `svc flags <verb>` command line read into a typed request (pure: unit-tested). Every
// problem is listed by the option it concerns; the shell exits 2 on any.
import type { FieldError } from "@svc/core";
import type { Environment } from "@svc/core/schema/settings";
import type { Connection, ConnectionOptions } from "./connection.ts";
import { flagdRequestOf, type FlagdRequest } from "./flagd-parse.ts";
import { FLAGD_USAGE, FLAGD_VERBS, IMPORT_ONLY, isFlagdVerb, type FlagdVerb } from "./flagd-verbs.ts";
import {
  DEFAULT_CLUSTER,
  flagRef,
  noPositional,
  parseLabels,
  type FlagRef,
  type OptionValues,
} from "./names.ts";
import { rolloutRequestOf, type RolloutRequest } from "./rollout-parse.ts";
import { ROLLOUT } from "./rollout-verbs.ts";
import {
  VERBS,
  isVerb,
  rolloutUsage,
  verbHelp,
  type DeliveryKind,
  type OptionSpec,
  type Output,
  type Verb,
} from "./verbs.ts";

export { DEFAULT_CLUSTER, parseLabels, type ConnectionOptions, type FlagRef };

/** The definition fields a command line sets (create: all of them; set: the ones to change). */
export interface DefinitionOptions {
  type?: string;
  value?: string;
  description?: string;
  delivery?: DeliveryKind;
  selector?: Record<string, string>;
  envName?: string;
  configMap?: string;
  key?: string;
  port?: number;
}

export type VerbRequest =
  | { verb: "login"; username?: string; passwordStdin: boolean }
  | { verb: "list"; cluster?: string; namespace?: string; prefix?: string }
  | { verb: "get"; flag: FlagRef }
  | { verb: "delete"; flag: FlagRef }
  | { verb: "create"; flag: FlagRef; definition: DefinitionOptions; enabled: boolean; dryRun: boolean }
  | { verb: "set"; flag: FlagRef; definition: DefinitionOptions; dryRun: boolean }
  | { verb: "toggle"; flag: FlagRef; enabled?: boolean }
  | { verb: "apply"; file: string; cluster: string; dryRun: boolean }
  | { verb: "diff"; file: string; cluster: string; dryRun: boolean }
  | { verb: "completion"; shell: "bash" | "zsh" }
  | RolloutRequest;

export type ParsedCommand =
  | { kind: "help"; text: string }
  | { kind: "usage"; verb?: Verb; group?: typeof ROLLOUT; errors: FieldError[] }
  | { kind: "run"; request: VerbRequest; output: Output; connection: ConnectionOptions }
  // import and export: their connection is resolved with their command line (flagd-parse.ts).
  | { kind: "flagd usage"; errors: FieldError[] }
  | { kind: "flagd run"; request: FlagdRequest; connection: Connection };

/**
 * How options are written: every verb's way, or import and export's first one, `--name value`
 * only (`-x` is a word; `--name=value`, or a valued `--name` with nothing after it, is no option).
 */
export type OptionSyntax = "verb" | "first version";

/** Reads options (`--name value`, `--name=value`, `-x value`) against the verb's table. */
export function readOptions(
  specs: readonly OptionSpec[],
  args: readonly string[],
  errors: FieldError[],
  syntax: OptionSyntax = "verb",
) {
  const firstVersion = syntax === "first version";
  const unknown = `is not an option of this ${firstVersion ? "command" : "verb"}`;
  const values = new Map<string, string>();
  const lists = new Map<string, string[]>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (!arg.startsWith(firstVersion ? "--" : "-") || arg === "-") {
      positional.push(arg);
      continue;
    }
    const [word, inline] = arg.startsWith("--") && !firstVersion ? splitOnce(arg) : [arg, undefined];
    const spec = specs.find((s) => s.name === word || s.short === word);
    if (spec === undefined) {
      errors.push({ field: word, message: unknown });
    } else if (spec.value === undefined) {
      if (inline !== undefined) errors.push({ field: spec.name, message: "takes no value" });
      values.set(spec.name, "true");
    } else {
      const value = inline ?? args[++i];
      if (value === undefined)
        errors.push({ field: spec.name, message: firstVersion ? unknown : `needs a value (${spec.value})` });
      else if (spec.choices !== undefined && !spec.choices.includes(value))
        errors.push({ field: spec.name, message: `must be one of: ${spec.choices.join(", ")}` });
      else {
        values.set(spec.name, value);
        lists.set(spec.name, [...(lists.get(spec.name) ?? []), value]);
      }
    }
  }
  return { values, lists, positional };
}

function splitOnce(arg: string): [string, string | undefined] {
  const at = arg.indexOf("=");
  return at < 0 ? [arg, undefined] : [arg.slice(0, at), arg.slice(at + 1)];
}

function definitionOf(values: Map<string, string>, errors: FieldError[]): DefinitionOptions {
  const definition: DefinitionOptions = {};
  const text = { "--type": "type", "--value": "value", "--description": "description" } as const;
  for (const [name, field] of Object.entries(text)) {
    const value = values.get(name);
    if (value !== undefined) definition[field] = value;
  }
  const delivery = values.get("--delivery");
  if (delivery !== undefined) definition.delivery = delivery as DeliveryKind;
  const selector = values.get("--selector");
  if (selector !== undefined) {
    const labels = parseLabels(selector);
    if (labels === undefined) errors.push({ field: "--selector", message: "must be k=v[,k=v]" });
    else definition.selector = labels;
  }
  const extras = { "--env-name": "envName", "--config-map": "configMap", "--key": "key" } as const;
  for (const [name, field] of Object.entries(extras)) {
    const value = values.get(name);
    if (value !== undefined) definition[field] = value;
  }
  const port = values.get("--port");
  if (port !== undefined) {
    if (/^[0-9]{1,5}$/.test(port)) definition.port = Number(port);
    else errors.push({ field: "--port", message: "must be a port number" });
  }
  return definition;
}

function requestOf(verb: Verb, options: OptionValues, errors: FieldError[]) {
  const { values, positional } = options;
  const has = (name: string) => values.has(name);
  switch (verb) {
    case "login": {
      noPositional(positional, errors);
      const username = values.get("--username");
      return {
        verb,
        passwordStdin: has("--password-stdin"),
        ...(username === undefined ? {} : { username }),
      };
    }
    case "list": {
      noPositional(positional, errors);
      const filters = { cluster: "--cluster", namespace: "--namespace", prefix: "--prefix" } as const;
      const request: VerbRequest & { verb: "list" } = { verb };
      for (const [field, name] of Object.entries(filters)) {
        const value = values.get(name);
        if (value !== undefined) request[field as keyof typeof filters] = value;
      }
      return request;
    }
    case "get":
    case "delete":
      return { verb, flag: flagRef(values, positional, errors) };
    case "create": {
      const flag = flagRef(values, positional, errors);
      const definition = definitionOf(values, errors);
      for (const name of ["--type", "--value", "--selector"])
        if (!has(name) && !errors.some((e) => e.field === name))
          errors.push({ field: name, message: "is required" });
      return { verb, flag, definition, enabled: !has("--disabled"), dryRun: has("--dry-run") };
    }
    case "set": {
      const flag = flagRef(values, positional, errors);
      const definition = definitionOf(values, errors);
      if (Object.keys(definition).length === 0)
        errors.push({ field: "", message: "nothing to set: give at least one of --type, --value, ..." });
      return { verb, flag, definition, dryRun: has("--dry-run") };
    }
    case "toggle": {
      const flag = flagRef(values, positional, errors);
      if (has("--on") && has("--off"))
        errors.push({ field: "--on", message: "and --off exclude each other" });
      return { verb, flag, ...(has("--on") || has("--off") ? { enabled: has("--on") } : {}) };
    }
    case "apply":
    case "diff": {
      noPositional(positional, errors);
      const file = values.get("--filename");
      if (file === undefined && !errors.some((e) => e.field === "--filename"))
        errors.push({ field: "--filename", message: "is required (-f FILE)" });
      const cluster = values.get("--cluster") ?? DEFAULT_CLUSTER;
      return { verb, file: file ?? "", cluster, dryRun: has("--dry-run") };
    }
    case "completion": {
      const [shell, ...extra] = positional;
      if ((shell !== "bash" && shell !== "zsh") || extra.length > 0)
        errors.push({ field: "SHELL", message: "must be bash or zsh" });
      return { verb, shell: shell === "zsh" ? "zsh" : "bash" };
    }
    default:
      return rolloutRequestOf(verb, options, errors);
  }
}

/** The verb a command line names, and the words after it: `rollout <verb>` is one verb of two words. */
function verbOf(args: readonly string[]): { word: string; rest: readonly string[] } {
  const [first = "", second = "", ...more] = args;
  if (first !== ROLLOUT || second === "" || second.startsWith("-"))
    return { word: first, rest: args.slice(1) };
  return { word: `${ROLLOUT} ${second}`, rest: more };
}

/** --help or -h among the words after the verb: its help, whatever else they say. */
export const asksForHelp = (words: readonly string[]) => words.includes("--help") || words.includes("-h");

/** import and export: `env` holds SVC_API_URL and SVC_TOKEN, which their options win over. */
function parseFlagdCommand(verb: FlagdVerb, words: readonly string[], env: Environment): ParsedCommand {
  if (asksForHelp(words)) return { kind: "help", text: FLAGD_USAGE };
  const errors: FieldError[] = [];
  // export reads import's options too, to say they are import's.
  const specs =
    verb === "import" ? FLAGD_VERBS.import.options : [...FLAGD_VERBS.export.options, ...IMPORT_ONLY];
  const options = readOptions(specs, words, errors, "first version");
  const { request, connection } = flagdRequestOf(verb, options, errors, env);
  return errors.length > 0 ? { kind: "flagd usage", errors } : { kind: "flagd run", request, connection };
}

/**
 * `svc flags <verb> …` (the words after `flags`), for every verb. `env` is read by import and
 * export only; the other verbs' connection is resolved by the shell.
 */
export function parseVerbCommand(args: readonly string[], env: Environment = {}): ParsedCommand {
  const { word, rest } = verbOf(args);
  if (isFlagdVerb(word)) return parseFlagdCommand(word, rest, env);
  if (word === ROLLOUT) {
    if (asksForHelp(rest)) return { kind: "help", text: rolloutUsage() };
    const errors = [{ field: "", message: `a verb is required: svc flags ${ROLLOUT} <verb>` }];
    return { kind: "usage", group: ROLLOUT, errors };
  }
  if (!isVerb(word)) {
    const message = word === "" ? "a verb is required" : `unknown verb ${JSON.stringify(word)}`;
    const group = word.startsWith(`${ROLLOUT} `) ? ({ group: ROLLOUT } as const) : {};
    return { kind: "usage", ...group, errors: [{ field: "", message }] };
  }
  if (asksForHelp(rest)) return { kind: "help", text: verbHelp(word) };
  const errors: FieldError[] = [];
  const options = readOptions(VERBS[word].options, rest, errors);
  const request = requestOf(word, options, errors) as VerbRequest;
  if (errors.length > 0) return { kind: "usage", verb: word, errors };
  const { values } = options;
  return { kind: "run", request, output: outputOf(values), connection: connectionOf(values) };
}

/** --output of a verb's read options (table unless given). */
export const outputOf = (values: ReadonlyMap<string, string>) =>
  (values.get("--output") ?? "table") as Output;

/** The connection options (--server, --token, --override-reason) of a verb's read options. */
export function connectionOf(values: ReadonlyMap<string, string>): ConnectionOptions {
  const connection: ConnectionOptions = {};
  const server = values.get("--server");
  const token = values.get("--token");
  const overrideReason = values.get("--override-reason");
  if (server !== undefined) connection.server = server;
  if (token !== undefined) connection.token = token;
  if (overrideReason !== undefined) connection.overrideReason = overrideReason;
  return connection;
}
