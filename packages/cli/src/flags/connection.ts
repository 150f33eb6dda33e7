// Where `svc flags` sends its requests and with which token (pure: unit-tested): options win
// over SVC_API_URL / SVC_TOKEN (CI), which win over what `svc flags login` saved. The saved
// token is only ever sent to the server it was issued by.
import { isAbsolute, join } from "node:path";
import type { FieldError, Validated } from "@svc/core";
import { settingsReader, type Environment } from "@svc/core/schema/settings";

export const DEFAULT_SERVER = "http://127.0.0.1:8090";

/** The options that say where the API is; the shell fills the rest from the environment and login. */
export interface ConnectionOptions {
  server?: string;
  token?: string;
  /** --override-reason: an admin's reason to write a protected cluster's flag directly. */
  overrideReason?: string;
}

export interface CliSettings {
  server: string;
  token: string;
  configHome: string;
}

/** The environment `svc flags` reads (its --help and docs/configuration.md list it from here). */
export function parseCliSettings(env: Environment): Validated<CliSettings> {
  const read = settingsReader(env);
  const server = read.text("SVC_API_URL", "", `a URL; unset: the server of login, else ${DEFAULT_SERVER}`);
  const token = read.text("SVC_TOKEN", "", "a token; unset: the token of login");
  const xdg = read.text("XDG_CONFIG_HOME", "", "a folder; unset: ~/.config (login keeps svc/token there)");
  if (server !== "" && !URL.canParse(server)) read.problem("SVC_API_URL", "must be a URL");
  if (read.errors.length > 0) return { ok: false, errors: [...read.errors] };
  // XDG Base Directory: a relative XDG_CONFIG_HOME is invalid and ignored.
  const configHome = xdg !== "" && isAbsolute(xdg) ? xdg : join(env["HOME"] ?? "", ".config");
  return { ok: true, value: { server, token, configHome } };
}

/** $XDG_CONFIG_HOME/svc/token. */
export const tokenPath = (settings: Pick<CliSettings, "configHome">) =>
  join(settings.configHome, "svc", "token");

/** What login keeps: the token and the server that issued it. Never printed. */
export interface SavedLogin {
  server: string;
  token: string;
  username: string;
  expiresAt: string;
}

/** The token file's content, or undefined when it is not one (then it is as if there were none). */
export function parseSavedLogin(text: string): SavedLogin | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const fields = value as Record<string, unknown>;
  const text_ = (name: string) => (typeof fields[name] === "string" ? fields[name] : "");
  const saved = {
    server: text_("server"),
    token: text_("token"),
    username: text_("username"),
    expiresAt: text_("expiresAt"),
  };
  return saved.server === "" || saved.token === "" ? undefined : saved;
}

export const normalizeServer = (server: string) => server.replace(/\/+$/, "");

export interface Connection {
  server: string;
  token: string;
  /** Sent as X-Svc-Override-Reason (docs/safe-changes.md "Protected clusters"). */
  overrideReason?: string;
}

/**
 * The server and token of a request. Without any token the answer names the ways to get one;
 * a saved token of another server is not used (nor sent anywhere else).
 */
export function resolveConnection(
  options: ConnectionOptions,
  settings: CliSettings,
  saved: SavedLogin | undefined,
): Validated<Connection> {
  const chosen = options.server ?? (settings.server === "" ? undefined : settings.server);
  const server = normalizeServer(chosen ?? saved?.server ?? DEFAULT_SERVER);
  const errors: FieldError[] = [];
  if (!URL.canParse(server)) errors.push({ field: "--server", message: "must be a URL" });
  const fromLogin = saved !== undefined && normalizeServer(saved.server) === server ? saved.token : "";
  const token = options.token ?? (settings.token === "" ? fromLogin : settings.token);
  if (token === "")
    errors.push({
      field: "--token",
      message: `no token for ${server}: run svc flags login --server ${server}, or set SVC_TOKEN`,
    });
  if (errors.length > 0) return { ok: false, errors };
  const { overrideReason } = options;
  return { ok: true, value: { server, token, ...(overrideReason === undefined ? {} : { overrideReason }) } };
}

/** Exit codes of `svc flags` (docs/cli.md). */
export const EXIT = { ok: 0, error: 1, usage: 2, notFound: 3, conflict: 4 } as const;

/** The exit code of a refused request: 404 → 3, 409 → 4, any other → 1. */
export function exitCodeOf(status: number): number {
  if (status === 404) return EXIT.notFound;
  if (status === 409) return EXIT.conflict;
  return EXIT.error;
}
