// The thin HTTP shell of `svc flags`: one request, its JSON answer, or an ApiError carrying the
// status, from which the exit code is decided (exitCodeOf).
import { OVERRIDE_REASON_HEADER } from "@svc/core/rollouts/protected-writes";
import { EXIT, exitCodeOf, type Connection } from "./connection.ts";

export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export async function apiRequest<T>(
  connection: Connection,
  method: string,
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<T> {
  const timeout = AbortSignal.timeout(120_000);
  const response = await fetch(`${connection.server}${path}`, {
    method,
    headers: {
      ...(connection.token === "" ? {} : { authorization: `Bearer ${connection.token}` }),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      // Percent-encoded: a header is Latin-1 on the wire, a reason may be any text.
      ...(connection.overrideReason === undefined
        ? {}
        : { [OVERRIDE_REASON_HEADER]: encodeURIComponent(connection.overrideReason) }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    // A watch ends its request in flight when it is stopped (Ctrl-C).
    signal: signal === undefined ? timeout : AbortSignal.any([timeout, signal]),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (response.ok) return json as T;
  const error = (json as { error?: unknown } | undefined)?.error;
  const message = typeof error === "string" ? error : text.slice(0, 500);
  // A saved token ends after 24 hours or with a restart of the API server (sessions live in memory).
  const hint = response.status === 401 ? " (log in again: svc flags login)" : "";
  throw new ApiError(response.status, `${response.status} ${message}${hint}`);
}

/** /api/v1/flags/{ns}/{name}[/suffix]?clusterId=…[&more], every part escaped. */
export function flagPath(
  flag: { cluster: string; namespace: string; name: string },
  suffix = "",
  more: Record<string, string> = {},
): string {
  const query = new URLSearchParams({ clusterId: flag.cluster, ...more }).toString();
  return `/api/v1/flags/${encodeURIComponent(flag.namespace)}/${encodeURIComponent(flag.name)}${suffix}?${query}`;
}

/** A failure decided before or beside any request: bad usage (2) or a bad file (1). */
export class ExitError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

/** Why a call failed, in one line: fetch's own message is "fetch failed", its cause says why. */
export function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : "";
  return cause === "" || message.includes(cause) ? message : `${message}: ${cause}`;
}

/** Says on stderr why `command` failed; returns its exit code (the API's status, an ExitError's code, else 1). */
export function failure(command: string, error: unknown): number {
  process.stderr.write(`${command}: ${reason(error)}\n`);
  if (error instanceof ApiError) return exitCodeOf(error.status);
  if (error instanceof ExitError) return error.code;
  return EXIT.error;
}
