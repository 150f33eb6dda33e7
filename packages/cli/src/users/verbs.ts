// The verbs of `svc users` and their options: one table feeds the parser (parse.ts), every verb's
// --help and the completion scripts (flags/completion.ts), as the table of `svc flags` does.
import { ROLES } from "@svc/core";
import { CONNECTION, option, OUTPUT, type OptionSpec } from "../flags/options.ts";
import { EXIT_CODES, optionLine, type VerbSpec } from "../flags/verbs.ts";

const ROLE_CHOICES = [...ROLES, "none"] as const;

/** The scope of a grant: each option repeatable or comma-separated; omitted means "all". */
export const SCOPE = [
  option("--cluster", "cluster ids (repeat or comma-separate; default: every cluster)", {
    short: "-c",
    value: "ID",
    repeats: true,
  }),
  option("--cluster-label", "only clusters whose ClusterConnection carries these labels", {
    value: "K=V",
    repeats: true,
  }),
  option("--namespace", "namespaces or patterns such as shop-* (default: every namespace)", {
    short: "-n",
    value: "NS",
    repeats: true,
  }),
] as const satisfies readonly OptionSpec[];

const GRANT_ROLE = option("--role", "the role the grant gives in its scope", {
  value: "ROLE",
  choices: ROLES,
});
const PASSWORD_STDIN = option(
  "--password-stdin",
  "read the password from stdin (asked on a terminal otherwise)",
);
const SCOPE_NOTE =
  "A scope names clusters (ids and/or labels) and namespaces; an omitted part means all of it.";

export const USER_VERBS = {
  list: {
    args: "",
    summary: "list users: global role and grants",
    options: [OUTPUT, ...CONNECTION],
  },
  get: {
    args: "USER",
    summary: "show a user and each of its grants, numbered",
    options: [OUTPUT, ...CONNECTION],
  },
  create: {
    args: "USER --role ROLE [SCOPE]",
    summary: "create a user: a global role, or with a scope a grant of the role there (admin)",
    options: [
      option("--role", "the role: global without a scope, else the grant's", {
        value: "ROLE",
        choices: ROLES,
      }),
      ...SCOPE,
      PASSWORD_STDIN,
      OUTPUT,
      ...CONNECTION,
    ],
    notes: [
      "svc users create ana --role editor: an editor everywhere (SPEC.md's user).",
      "svc users create sam --role editor -c staging -n 'shop-*': global role none, one grant.",
      SCOPE_NOTE,
    ],
  },
  set: {
    args: "USER",
    summary: "change a user's global role (admin) or password (admin, or your own)",
    options: [
      option("--role", "the global role; none keeps only the grants", {
        value: "ROLE",
        choices: ROLE_CHOICES,
      }),
      option("--password", "set a new password, asked on the terminal"),
      option("--password-stdin", "set a new password, read from stdin"),
      OUTPUT,
      ...CONNECTION,
    ],
  },
  grant: {
    args: "USER --role ROLE SCOPE",
    summary: "add a grant of a role over clusters and namespaces to a user (admin)",
    options: [GRANT_ROLE, ...SCOPE, OUTPUT, ...CONNECTION],
    notes: [
      "svc users grant sam --role viewer --cluster-label env=prod: viewer in every prod cluster.",
      SCOPE_NOTE,
      "A grant the user already holds is not added twice. For a global role: svc users set --role.",
    ],
  },
  revoke: {
    args: "USER (--role ROLE SCOPE | --index N | --all)",
    summary: "remove a user's grant: the one given exactly, the Nth of get, or all (admin)",
    options: [
      GRANT_ROLE,
      ...SCOPE,
      option("--index", "the grant's number in svc users get", { value: "N" }),
      option("--all", "every grant (refused for a user whose global role is none)"),
      OUTPUT,
      ...CONNECTION,
    ],
    notes: ["Exit 3 when no grant of the user matches."],
  },
  delete: {
    args: "USER",
    summary: "delete a user; their sessions end (admin; not yourself)",
    options: [OUTPUT, ...CONNECTION],
  },
} as const satisfies Record<string, VerbSpec>;

export type UserVerb = keyof typeof USER_VERBS;
export const isUserVerb = (word: string): word is UserVerb => Object.hasOwn(USER_VERBS, word);

/** `svc users <verb> --help`. */
export function userVerbHelp(verb: UserVerb): string {
  const spec: VerbSpec = USER_VERBS[verb];
  const args = spec.args === "" ? "" : ` ${spec.args}`;
  const lines = [`usage: svc users ${verb}${args} [options]`, "", `${spec.summary}.`];
  lines.push("", "options:", ...spec.options.map(optionLine));
  if (spec.notes !== undefined) lines.push("", ...spec.notes);
  return `${[...lines, "", EXIT_CODES].join("\n")}\n`;
}

/** `svc users` alone, or with an unknown verb. */
export function usersUsage(): string {
  const entries = Object.entries(USER_VERBS);
  const width = Math.max(...entries.map(([verb]) => verb.length));
  const lines = entries.map(([verb, spec]) => `  ${verb.padEnd(width)}  ${spec.summary}`);
  return `usage: svc users <verb> [options]   (svc users <verb> --help)\n\nUsers, their global roles and their grants of a role over clusters and namespaces (docs/cli.md\n"Users and grants"). The token is svc flags login's, or SVC_TOKEN.\n\nverbs:\n${lines.join("\n")}\n\n${EXIT_CODES}\n`;
}
