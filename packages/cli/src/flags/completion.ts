// `svc flags completion bash|zsh` (pure: unit-tested, the bash script also run by bash): built
// from the verb table, so a new verb or option is completed without editing a script. zsh runs
// the same function through its bashcompinit layer: one script to keep right, not two.
import { ROLLOUT } from "./rollout-verbs.ts";
import { USER_VERBS } from "../users/verbs.ts";
import { FLAGD_VERBS } from "./flagd-verbs.ts";
import { OVERRIDE_REASON } from "./options.ts";
import { rolloutVerbs, VERBS, type OptionSpec, type VerbSpec } from "./verbs.ts";

/**
 * Options of import and export, from their table (flagd-verbs.ts): completed by name only, as
 * they always were; import's admin-only --override-reason is not offered.
 */
const flagdOptions = (): [string, string][] =>
  Object.entries(FLAGD_VERBS).map(([verb, spec]) => [
    verb,
    spec.options
      .filter((o) => o !== OVERRIDE_REASON)
      .map((o) => o.name)
      .join(" "),
  ]);

const quote = (words: readonly string[]) => `"${words.join(" ")}"`;

/** A verb's option names, long and short, as completion offers them. */
const optionNames = (spec: VerbSpec) =>
  spec.options.flatMap((o) => [o.name, ...(o.short === undefined ? [] : [o.short])]);

/** A case per valued option of the tables: its choices (all verbs' together), files, or nothing. */
function valueCases(tables: readonly Readonly<Record<string, VerbSpec>>[], indent = "    "): string[] {
  const specs = new Map<string, OptionSpec>();
  for (const table of tables)
    for (const verb of Object.values(table))
      for (const spec of verb.options) {
        const known = specs.get(spec.name)?.choices ?? [];
        const choices = spec.choices === undefined ? undefined : [...new Set([...known, ...spec.choices])];
        specs.set(spec.name, choices === undefined ? spec : { ...spec, choices });
      }
  const cases: string[] = [];
  for (const spec of specs.values()) {
    const names = [spec.short, spec.name].filter((n) => n !== undefined).join("|");
    if (spec.choices !== undefined)
      cases.push(`${indent}${names}) COMPREPLY=($(compgen -W ${quote(spec.choices)} -- "$cur")); return ;;`);
    else if (spec.file === true)
      cases.push(`${indent}${names}) COMPREPLY=($(compgen -f -- "$cur")); return ;;`);
    else if (spec.value !== undefined) cases.push(`${indent}${names}) return ;;`);
  }
  return cases;
}

/** `svc users <verb> …`: its verbs, then each verb's options and their values. */
function userLines(): string[] {
  const verbs = Object.entries(USER_VERBS).map(([verb, spec]) => {
    const names = optionNames(spec);
    return `      ${JSON.stringify(verb)}) words=${quote([...names, "--help"])} ;;`;
  });
  return [
    '  if [[ "${COMP_WORDS[1]}" == users ]]; then',
    "    if [[ $COMP_CWORD -eq 2 ]]; then",
    `      COMPREPLY=($(compgen -W ${quote(Object.keys(USER_VERBS))} -- "$cur")); return`,
    "    fi",
    '    case "$prev" in',
    ...valueCases([USER_VERBS], "      "),
    "    esac",
    '    case "${COMP_WORDS[2]}" in',
    ...verbs,
    "    esac",
    '    COMPREPLY=($(compgen -W "$words" -- "$cur")); return',
    "  fi",
  ];
}

function verbCases(): string[] {
  const options = Object.entries(VERBS).map(([verb, spec]) => {
    const names = optionNames(spec);
    const words = verb === "completion" ? ["bash", "zsh"] : [...names, "--help"];
    return `    ${JSON.stringify(verb)}) words=${quote(words)} ;;`;
  });
  const flagd = flagdOptions().map(([verb, words]) => `    ${verb}) words="${words} --help" ;;`);
  return [...options, ...flagd];
}

export function bashCompletion(commands: readonly string[]): string {
  // `rollout <verb>` verbs are one word here (rollout), their second word completed after it.
  const verbs = [
    ...new Set([
      ...Object.keys(VERBS).map((verb) => verb.split(" ")[0] ?? verb),
      ...Object.keys(FLAGD_VERBS),
    ]),
  ];
  return [
    "# svc completion for bash: source <(svc flags completion bash)",
    "_svc_complete() {",
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" words=""',
    "  COMPREPLY=()",
    "  if [[ $COMP_CWORD -eq 1 ]]; then",
    `    COMPREPLY=($(compgen -W ${quote(commands)} -- "$cur")); return`,
    "  fi",
    ...userLines(),
    '  [[ "${COMP_WORDS[1]}" == flags ]] || return',
    "  if [[ $COMP_CWORD -eq 2 ]]; then",
    `    COMPREPLY=($(compgen -W ${quote(verbs)} -- "$cur")); return`,
    "  fi",
    `  local verb="\${COMP_WORDS[2]}"`,
    `  if [[ $verb == ${ROLLOUT} ]]; then`,
    "    if [[ $COMP_CWORD -eq 3 ]]; then",
    `      COMPREPLY=($(compgen -W ${quote(rolloutVerbs())} -- "$cur")); return`,
    "    fi",
    `    verb="${ROLLOUT} \${COMP_WORDS[3]}"`,
    "  fi",
    '  case "$prev" in',
    ...valueCases([VERBS]),
    "  esac",
    '  case "$verb" in',
    ...verbCases(),
    "  esac",
    '  COMPREPLY=($(compgen -W "$words" -- "$cur"))',
    "}",
    "complete -F _svc_complete svc",
    "",
  ].join("\n");
}

export function zshCompletion(commands: readonly string[]): string {
  return [
    "# svc completion for zsh: source <(svc flags completion zsh)",
    "autoload -U +X compinit && compinit",
    "autoload -U +X bashcompinit && bashcompinit",
    bashCompletion(commands),
  ].join("\n");
}
