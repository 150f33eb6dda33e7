// The shell of `svc users <verb>`: parse (pure), resolve the connection as `svc flags` does (its
// login's token, SVC_TOKEN, --token), call the users API, print; exit codes as svc flags: 0 done,
// 1 error, 2 bad usage, 3 not found, 4 conflict.
import { describeErrors, type CreateUserBody, type UpdateUserBody, type UserView } from "@svc/core";
import { ApiError, apiRequest, ExitError, failure } from "../flags/client.ts";
import {
  EXIT,
  parseCliSettings,
  resolveConnection,
  tokenPath,
  type Connection,
} from "../flags/connection.ts";
import type { Output } from "../flags/options.ts";
import { askSecret, readStdin } from "../flags/prompt.ts";
import { renderData } from "../flags/render.ts";
import { readSavedLogin } from "../flags/store.ts";
import { addGrant, removeGrants } from "./grant-edits.ts";
import { parseUsersCommand, type UsersRequest } from "./parse.ts";
import { grantText, renderUser, renderUsers } from "./render.ts";
import { userVerbHelp, usersUsage } from "./verbs.ts";

type Request<V extends UsersRequest["verb"]> = UsersRequest & { verb: V };

const userPath = (username: string) => `/api/v1/users/${encodeURIComponent(username)}`;

async function password(from: "prompt" | "stdin"): Promise<string> {
  if (from === "stdin") return readStdin();
  if (!process.stdin.isTTY)
    throw new ExitError(EXIT.usage, "--password-stdin is required when stdin is not a terminal");
  return askSecret("new password: ");
}

/** The user as the list shows it (GET /api/v1/users is the API's one read of users). */
async function readUser(api: Connection, username: string): Promise<UserView> {
  const users = await apiRequest<UserView[]>(api, "GET", "/api/v1/users");
  const user = users.find((u) => u.username === username);
  if (user === undefined) throw new ApiError(404, `user ${username} not found`);
  return user;
}

const done = (message: string, output: Output, value: unknown) =>
  output === "table" ? `${message}\n` : renderData(value, output);

async function create(api: Connection, request: Request<"create">, output: Output) {
  const body: CreateUserBody = {
    username: request.username,
    password: await password(request.passwordStdin ? "stdin" : "prompt"),
    role: request.role,
    ...(request.grants.length === 0 ? {} : { grants: request.grants }),
  };
  return renderUser(await apiRequest<UserView>(api, "POST", "/api/v1/users", body), output);
}

async function set(api: Connection, request: Request<"set">, output: Output) {
  const body: UpdateUserBody = {
    ...(request.role === undefined ? {} : { role: request.role }),
    ...(request.password === undefined ? {} : { password: await password(request.password) }),
  };
  const answer = await apiRequest<{ message: string }>(api, "PUT", userPath(request.username), body);
  return done(answer.message, output, answer);
}

async function grant(api: Connection, request: Request<"grant">, output: Output) {
  const user = await readUser(api, request.username);
  const grants = addGrant(user.grants ?? [], request.grant);
  if (grants === undefined)
    return done(`${user.username} holds ${grantText(request.grant)} already`, output, user);
  await apiRequest(api, "PUT", userPath(user.username), { grants });
  return done(`granted ${grantText(request.grant)} to ${user.username}`, output, { ...user, grants });
}

async function revoke(api: Connection, request: Request<"revoke">, output: Output) {
  const user = await readUser(api, request.username);
  const grants = removeGrants(user.grants ?? [], request.choice);
  if (grants === undefined)
    throw new ApiError(
      404,
      `no grant of ${user.username} matches (svc users get ${user.username} lists them)`,
    );
  await apiRequest(api, "PUT", userPath(user.username), { grants });
  const removed = (user.grants ?? []).length - grants.length;
  return done(`revoked ${removed} grant(s) of ${user.username}`, output, { ...user, grants });
}

async function execute(request: UsersRequest, output: Output, api: Connection): Promise<string> {
  switch (request.verb) {
    case "list":
      return renderUsers(await apiRequest<UserView[]>(api, "GET", "/api/v1/users"), output);
    case "get":
      return renderUser(await readUser(api, request.username), output);
    case "create":
      return create(api, request, output);
    case "set":
      return set(api, request, output);
    case "grant":
      return grant(api, request, output);
    case "revoke":
      return revoke(api, request, output);
    case "delete": {
      const answer = await apiRequest<{ message: string }>(api, "DELETE", userPath(request.username));
      return done(answer.message, output, answer);
    }
  }
}

/** Runs one `svc users` verb; returns its exit code. */
export async function runUsersVerb(args: readonly string[]): Promise<number> {
  const parsed = parseUsersCommand(args);
  if (parsed.kind === "help") {
    process.stdout.write(parsed.text);
    return EXIT.ok;
  }
  if (parsed.kind === "usage") {
    const command = parsed.verb === undefined ? "svc users" : `svc users ${parsed.verb}`;
    const help = parsed.verb === undefined ? usersUsage() : userVerbHelp(parsed.verb);
    process.stderr.write(`${command}: ${describeErrors(parsed.errors)}\n\n${help}`);
    return EXIT.usage;
  }
  const command = `svc users ${parsed.request.verb}`;
  try {
    const settings = parseCliSettings(process.env);
    if (!settings.ok) throw new ExitError(EXIT.usage, describeErrors(settings.errors));
    const saved = await readSavedLogin(tokenPath(settings.value));
    const connection = resolveConnection(parsed.connection, settings.value, saved);
    if (!connection.ok) throw new ExitError(EXIT.usage, describeErrors(connection.errors));
    process.stdout.write(await execute(parsed.request, parsed.output, connection.value));
    return EXIT.ok;
  } catch (error) {
    return failure(command, error);
  }
}
