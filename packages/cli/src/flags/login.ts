// `svc flags login`: POST /api/v1/auth/login, then the token is kept in the token file for the
// next commands. The token is never printed: it would end up in terminals' scroll-back and CI logs.
import type { SessionView } from "@svc/core";
import { apiRequest, ExitError } from "./client.ts";
import {
  DEFAULT_SERVER,
  EXIT,
  normalizeServer,
  tokenPath,
  type CliSettings,
  type SavedLogin,
} from "./connection.ts";
import type { ConnectionOptions, VerbRequest } from "./parse.ts";
import { askLine, askSecret, readStdin } from "./prompt.ts";
import { saveLogin } from "./store.ts";

export async function login(
  request: VerbRequest & { verb: "login" },
  options: ConnectionOptions,
  settings: CliSettings,
  saved: SavedLogin | undefined,
): Promise<string> {
  // Logging in again (a token lasts 24 hours) goes to the server of the last login by default.
  const fromEnv = settings.server === "" ? undefined : settings.server;
  const server = normalizeServer(options.server ?? fromEnv ?? saved?.server ?? DEFAULT_SERVER);
  const terminal = process.stdin.isTTY;
  const username = request.username ?? (terminal ? await askLine("username: ") : undefined);
  if (username === undefined || username === "")
    throw new ExitError(EXIT.usage, "--username is required when stdin is not a terminal");
  let password: string;
  if (request.passwordStdin) password = await readStdin();
  else if (terminal) password = await askSecret("password: ");
  else throw new ExitError(EXIT.usage, "--password-stdin is required when stdin is not a terminal");
  const answer = await apiRequest<SessionView>({ server, token: "" }, "POST", "/api/v1/auth/login", {
    username,
    password,
  });
  const path = tokenPath(settings);
  await saveLogin(path, { server, token: answer.token, username, expiresAt: answer.expiresAt });
  return `logged in to ${server} as ${answer.user.username} (${answer.user.role}); token kept in ${path} until ${answer.expiresAt}\n`;
}
