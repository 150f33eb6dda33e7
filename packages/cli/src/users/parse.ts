// A `svc users <verb>` command line read into a typed request (pure: unit-tested). A grant's
// scope is checked by core's own schema of grants, so the CLI refuses what the API would, naming
// the option instead of the JSON field.
import { validateGrants, type FieldError, type Grant, type Role, type UserRole } from "@svc/core";
import type { ConnectionOptions } from "../flags/parse.ts";
import { connectionOf, outputOf, readOptions } from "../flags/parse.ts";
import { noPositional, parseLabels } from "../flags/names.ts";
import type { Output } from "../flags/options.ts";
import { isUserVerb, USER_VERBS, userVerbHelp, usersUsage, type UserVerb } from "./verbs.ts";

/** Which grants revoke removes. */
export type GrantChoice =
  { kind: "grant"; grant: Grant } | { kind: "index"; index: number } | { kind: "all" };

export type UsersRequest =
  | { verb: "list" }
  | { verb: "get"; username: string }
  | { verb: "delete"; username: string }
  | { verb: "create"; username: string; role: UserRole; grants: Grant[]; passwordStdin: boolean }
  | { verb: "set"; username: string; role?: UserRole; password?: "prompt" | "stdin" }
  | { verb: "grant"; username: string; grant: Grant }
  | { verb: "revoke"; username: string; choice: GrantChoice };

export type ParsedUsers =
  | { kind: "help"; text: string }
  | { kind: "usage"; verb?: UserVerb; errors: FieldError[] }
  | { kind: "run"; request: UsersRequest; output: Output; connection: ConnectionOptions };

const OPTION_OF_FIELD = {
  clusters: "--cluster",
  clusterLabels: "--cluster-label",
  namespaces: "--namespace",
};

/** Every value of a repeatable option, each split on commas: `-n a,b -n c` → [a, b, c]. */
function listOf(lists: Map<string, string[]>, name: string): string[] | undefined {
  const values = (lists.get(name) ?? []).flatMap((value) => value.split(",")).map((v) => v.trim());
  return values.length === 0 ? undefined : values;
}

/** The grant of `role` over the scope options; `errors` get the option each problem concerns. */
function grantOf(role: Role, lists: Map<string, string[]>, errors: FieldError[]): Grant {
  const clusters = listOf(lists, "--cluster");
  const namespaces = listOf(lists, "--namespace");
  let clusterLabels: Record<string, string> | undefined;
  for (const text of lists.get("--cluster-label") ?? []) {
    const labels = parseLabels(text);
    if (labels === undefined) errors.push({ field: "--cluster-label", message: "must be k=v[,k=v]" });
    else clusterLabels = { ...clusterLabels, ...labels };
  }
  const grant: Grant = {
    role,
    ...(clusters === undefined ? {} : { clusters }),
    ...(clusterLabels === undefined ? {} : { clusterLabels }),
    ...(namespaces === undefined ? {} : { namespaces }),
  };
  const checked = validateGrants([grant]);
  if (!checked.ok)
    for (const error of checked.errors) {
      const field = Object.entries(OPTION_OF_FIELD).find(([key]) =>
        `${error.field} ${error.message}`.includes(key),
      );
      errors.push({ field: field?.[1] ?? "", message: error.message });
    }
  return grant;
}

const hasScope = (lists: Map<string, string[]>) =>
  ["--cluster", "--cluster-label", "--namespace"].some((name) => lists.has(name));

function usernameOf(positional: string[], errors: FieldError[]): string {
  const [username, ...extra] = positional;
  if (username === undefined || username === "") errors.push({ field: "USER", message: "is required" });
  if (extra.length > 0) noPositional(extra, errors);
  return username ?? "";
}

function requestOf(verb: UserVerb, rest: readonly string[], errors: FieldError[]) {
  const { values, lists, positional } = readOptions(USER_VERBS[verb].options, rest, errors);
  const role = values.get("--role") as UserRole | undefined;
  const needRole = () => {
    if (role === undefined && !errors.some((e) => e.field === "--role"))
      errors.push({ field: "--role", message: "is required" });
    return (role ?? "viewer") as Role;
  };
  if (verb === "list") {
    noPositional(positional, errors);
    return { request: { verb } as const, values };
  }
  const username = usernameOf(positional, errors);
  switch (verb) {
    case "get":
    case "delete":
      return { request: { verb, username }, values };
    case "create": {
      const given = needRole();
      // With a scope the role is a grant there, and the user holds no global role.
      const grants = hasScope(lists) ? [grantOf(given, lists, errors)] : [];
      const request = {
        verb,
        username,
        role: grants.length > 0 ? "none" : given,
        grants,
        passwordStdin: values.has("--password-stdin"),
      };
      return { request, values };
    }
    case "set": {
      if (values.has("--password") && values.has("--password-stdin"))
        errors.push({ field: "--password", message: "and --password-stdin exclude each other" });
      const password = values.has("--password-stdin")
        ? "stdin"
        : values.has("--password")
          ? "prompt"
          : undefined;
      if (role === undefined && password === undefined)
        errors.push({ field: "", message: "nothing to set: give --role, --password or --password-stdin" });
      return {
        request: {
          verb,
          username,
          ...(role === undefined ? {} : { role }),
          ...(password === undefined ? {} : { password }),
        },
        values,
      };
    }
    case "grant": {
      const given = needRole();
      if (!hasScope(lists))
        errors.push({
          field: "",
          message:
            "a grant needs a scope (--cluster, --cluster-label or --namespace); for a global role: svc users set --role",
        });
      return { request: { verb, username, grant: grantOf(given, lists, errors) }, values };
    }
    case "revoke":
      return { request: { verb, username, choice: choiceOf(values, lists, role, errors) }, values };
  }
}

function choiceOf(
  values: Map<string, string>,
  lists: Map<string, string[]>,
  role: UserRole | undefined,
  errors: FieldError[],
): GrantChoice {
  const ways = [role !== undefined || hasScope(lists), values.has("--index"), values.has("--all")];
  if (ways.filter(Boolean).length !== 1)
    errors.push({ field: "", message: "say which grant: --role and its scope, --index N, or --all" });
  if (values.has("--all")) return { kind: "all" };
  const index = values.get("--index");
  if (index !== undefined) {
    if (!/^[1-9][0-9]{0,2}$/.test(index))
      errors.push({ field: "--index", message: "must be a grant's number (1, 2, ...)" });
    return { kind: "index", index: Number(index) };
  }
  if (role === "none") errors.push({ field: "--role", message: "must be a grant's role" });
  return {
    kind: "grant",
    grant: grantOf(role === undefined || role === "none" ? "viewer" : role, lists, errors),
  };
}

/** `svc users <verb> …` (the words after `users`). */
export function parseUsersCommand(args: readonly string[]): ParsedUsers {
  const [word = "", ...rest] = args;
  if (word === "" || word === "--help" || word === "-h") {
    if (word !== "") return { kind: "help", text: usersUsage() };
    return { kind: "usage", errors: [{ field: "", message: "a verb is required" }] };
  }
  if (!isUserVerb(word))
    return { kind: "usage", errors: [{ field: "", message: `unknown verb ${JSON.stringify(word)}` }] };
  if (rest.includes("--help") || rest.includes("-h")) return { kind: "help", text: userVerbHelp(word) };
  const errors: FieldError[] = [];
  const { request, values } = requestOf(word, rest, errors);
  if (errors.length > 0) return { kind: "usage", verb: word, errors };
  return {
    kind: "run",
    request: request as UsersRequest,
    output: outputOf(values),
    connection: connectionOf(values),
  };
}
