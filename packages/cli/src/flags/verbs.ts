// The verbs of `svc flags` and their options: one table feeds the parser (parse.ts), every
// verb's --help and the completion scripts (completion.ts), so the three cannot disagree.
import { DELIVERY_KINDS, FLAG_TYPES, type DeliveryKind } from "@svc/core/vocabulary";
import {
  CONNECTION,
  NAMESPACE,
  option,
  OUTPUT,
  OVERRIDE_REASON,
  SERVER,
  type OptionSpec,
} from "./options.ts";
import { FLAGD_VERBS } from "./flagd-verbs.ts";
import { ROLLOUT, ROLLOUT_VERBS } from "./rollout-verbs.ts";

export { OUTPUTS, type OptionSpec, type Output } from "./options.ts";
export type { DeliveryKind };

const CLUSTER = option("--cluster", "cluster id (default local)", { short: "-c", value: "ID" });
const DRY_RUN = option("--dry-run", "validate and preview the affected workloads; write nothing");
const FILE = option("--filename", "a YAML or JSON file of flags ('-' for stdin)", {
  short: "-f",
  value: "FILE",
  file: true,
});
/** The fields of a definition that a command line can set (variants and targeting: apply -f). */
const DEFINITION = [
  option("--type", "value type", { value: "TYPE", choices: FLAG_TYPES }),
  option("--value", "default value, as text ('true', '42', '{\"a\":1}')", { value: "VALUE" }),
  option("--description", "description", { value: "TEXT" }),
  option("--delivery", "how workloads get it", { value: "KIND", choices: DELIVERY_KINDS }),
  option("--selector", "workload labels, k=v[,k=v]", { value: "LABELS" }),
  option("--env-name", "envVar: the variable's name (default FLAG_<NAME>)", { value: "NAME" }),
  option("--config-map", "configMap: the ConfigMap's name", { value: "NAME" }),
  option("--key", "configMap: the key in the ConfigMap", { value: "KEY" }),
  option("--port", "sidecar: the flag server's port (default 8514)", { value: "PORT" }),
];

export interface VerbSpec {
  /** What follows the verb in the usage line, options aside. */
  args: string;
  summary: string;
  options: readonly OptionSpec[];
  /** Lines after the options in --help. */
  notes?: readonly string[];
}

export const VERBS = {
  login: {
    args: "",
    summary: "log in and keep the token in $XDG_CONFIG_HOME/svc/token (mode 0600)",
    options: [
      SERVER,
      option("--username", "user name (asked on a terminal when absent)", { short: "-u", value: "USER" }),
      option("--password-stdin", "read the password from stdin (asked on a terminal otherwise)"),
    ],
    notes: ["In CI, set SVC_TOKEN and SVC_API_URL instead: nothing is written."],
  },
  list: {
    args: "",
    summary: "list flags (every cluster unless --cluster)",
    options: [
      option("--cluster", "only this cluster", { short: "-c", value: "ID" }),
      option("--namespace", "only this namespace", { short: "-n", value: "NS" }),
      option("--prefix", "only names starting with this", { value: "TEXT" }),
      OUTPUT,
      ...CONNECTION,
    ],
  },
  get: {
    args: "NAMESPACE/NAME",
    summary: "show one flag",
    options: [CLUSTER, NAMESPACE, OUTPUT, ...CONNECTION],
  },
  create: {
    args: "NAMESPACE/NAME",
    summary: "create a flag (enabled unless --disabled)",
    options: [
      CLUSTER,
      NAMESPACE,
      ...DEFINITION,
      option("--disabled", "create it disabled"),
      DRY_RUN,
      OVERRIDE_REASON,
      OUTPUT,
      ...CONNECTION,
    ],
    notes: ["--type, --value and --selector are required; --delivery is sidecar by default."],
  },
  set: {
    args: "NAMESPACE/NAME",
    summary: "change fields of a flag; the others keep their value",
    options: [CLUSTER, NAMESPACE, ...DEFINITION, DRY_RUN, OVERRIDE_REASON, OUTPUT, ...CONNECTION],
    notes: ["Refused with exit 4 when the flag changed between its read and the write."],
  },
  toggle: {
    args: "NAMESPACE/NAME",
    summary: "flip a flag's enabled state, or set it with --on or --off",
    options: [
      CLUSTER,
      NAMESPACE,
      option("--on", "enable it (nothing changes when it is enabled)"),
      option("--off", "disable it (nothing changes when it is disabled)"),
      OVERRIDE_REASON,
      OUTPUT,
      ...CONNECTION,
    ],
  },
  delete: {
    args: "NAMESPACE/NAME",
    summary: "delete a flag (admin); the operator withdraws what it delivered",
    options: [CLUSTER, NAMESPACE, OVERRIDE_REASON, OUTPUT, ...CONNECTION],
  },
  apply: {
    args: "-f FILE",
    summary: "create or change every flag of a file; unchanged flags are not written",
    options: [FILE, CLUSTER, DRY_RUN, OVERRIDE_REASON, OUTPUT, ...CONNECTION],
    notes: [
      "The file: a list of flags in the REST API's shape (what get/list -o yaml print), YAML or JSON.",
      "Every flag is checked and previewed first: nothing is written when one is refused.",
      "Flags missing from the file are left alone. docs/cli.md.",
    ],
  },
  diff: {
    args: "-f FILE",
    summary: "show what apply would change, field by field, and the workloads it would touch",
    options: [FILE, CLUSTER, OUTPUT, ...CONNECTION],
  },
  ...ROLLOUT_VERBS,
  completion: {
    args: "bash|zsh",
    summary: "print a shell completion script",
    options: [],
    notes: ["bash: source <(svc flags completion bash); zsh: source <(svc flags completion zsh)"],
  },
} as const satisfies Record<string, VerbSpec>;

export type Verb = keyof typeof VERBS;
export const isVerb = (word: string): word is Verb => Object.hasOwn(VERBS, word);

export const EXIT_CODES = "exit codes: 0 done, 1 error, 2 bad usage, 3 not found, 4 conflict";

export function optionLine(spec: OptionSpec): string {
  const names = [spec.short, spec.name].filter((n) => n !== undefined).join(", ");
  const value = spec.value === undefined ? "" : ` ${spec.value}`;
  const choices = spec.choices === undefined ? "" : ` (${spec.choices.join("|")})`;
  return `  ${`${names}${value}`.padEnd(26)}  ${spec.help}${choices}`;
}

/** `svc flags <verb> --help`. */
export function verbHelp(verb: Verb): string {
  const spec: VerbSpec = VERBS[verb];
  const args = spec.args === "" ? "" : ` ${spec.args}`;
  const lines = [`usage: svc flags ${verb}${args} [options]`, "", `${spec.summary}.`];
  if (spec.options.length > 0) lines.push("", "options:", ...spec.options.map(optionLine));
  if (spec.notes !== undefined) lines.push("", ...spec.notes);
  return `${[...lines, "", EXIT_CODES].join("\n")}\n`;
}

/** The verbs `svc flags rollout <verb>` takes, as their word after `rollout`. */
export const rolloutVerbs = (): string[] =>
  Object.keys(VERBS)
    .filter((verb) => verb.startsWith(`${ROLLOUT} `))
    .map((verb) => verb.slice(ROLLOUT.length + 1));

function verbLines(entries: readonly (readonly [string, string])[]): string {
  const width = Math.max(...entries.map(([verb]) => verb.length));
  return entries.map(([verb, summary]) => `  ${verb.padEnd(width)}  ${summary}`).join("\n");
}

/** `svc flags` alone, or with an unknown verb: the plan verbs as one line (svc flags rollout). */
export function flagsUsage(): string {
  const group: [string, string] = [
    ROLLOUT,
    `plans changing a flag wave by wave (svc flags ${ROLLOUT} lists them)`,
  ];
  const entries = Object.entries(VERBS).flatMap(([verb, spec]): [string, string][] => {
    if (verb === `${ROLLOUT} ${rolloutVerbs()[0] ?? ""}`) return [group];
    return verb.startsWith(`${ROLLOUT} `) ? [] : [[verb, spec.summary]];
  });
  const flagd = Object.entries(FLAGD_VERBS).map(([verb, spec]): [string, string] => [verb, spec.summary]);
  const all = [...entries, ...flagd];
  return `usage: svc flags <verb> [options]   (svc flags <verb> --help)\n\nverbs:\n${verbLines(all)}\n\n${EXIT_CODES}\n`;
}

/** `svc flags rollout` alone, with --help, or with an unknown verb. */
export function rolloutUsage(): string {
  const entries = Object.entries(VERBS)
    .filter(([verb]) => verb.startsWith(`${ROLLOUT} `))
    .map(([verb, spec]): [string, string] => [verb.slice(ROLLOUT.length + 1), spec.summary]);
  return `usage: svc flags ${ROLLOUT} <verb> [options]   (svc flags ${ROLLOUT} <verb> --help)\n\nFlagRollout plans: a change to one flag applied wave by wave across clusters, each wave baked\nand health-gated, rolled back when a gate fails. docs/cli.md "Rollouts".\n\nverbs:\n${verbLines(entries)}\n\n${EXIT_CODES}\n`;
}
