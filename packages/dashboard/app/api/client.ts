/**
 * The one way the app talks to the API server (through the dashboard's /api proxy): adds the
 * session's token, turns every non-2xx answer into an ApiError carrying the server's message,
 * and reports two conditions the whole app reacts to: an ended session (401) and an unreachable
 * API server (502 from the proxy, or no answer at all).
 */

export class ApiError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
  }
}

/** Lists refresh this often, so changes made by others appear without a reload. */
export const LIVE_REFRESH_MS = 3000;

interface ClientHooks {
  token: string | undefined;
  /** Called when the API refuses the token (expired, revoked, or the user deleted). */
  onUnauthorized: () => void;
}

const hooks: ClientHooks = { token: undefined, onUnauthorized: () => undefined };

export function setSessionToken(token: string | undefined, onUnauthorized: () => void): void {
  hooks.token = token;
  hooks.onUnauthorized = onUnauthorized;
}

// --- API reachability, for the app-wide banner (read with useSyncExternalStore) ---

let unreachableMessage: string | undefined;
const reachabilityListeners = new Set<() => void>();

function setUnreachable(message: string | undefined): void {
  if (message === unreachableMessage) return;
  unreachableMessage = message;
  for (const listener of reachabilityListeners) listener();
}

export const apiReachability = {
  subscribe(listener: () => void): () => void {
    reachabilityListeners.add(listener);
    return () => reachabilityListeners.delete(listener);
  },
  /** The reason the API server cannot be reached, or undefined while it answers. */
  current: (): string | undefined => unreachableMessage,
};

export type QueryValue = string | number | boolean | undefined;

export interface RequestOptions {
  method?: "GET" | "POST" | "PUT" | "DELETE";
  body?: unknown;
  query?: Record<string, QueryValue>;
  /** Defaults to application/json; text/csv for the audit export. */
  accept?: string;
  signal?: AbortSignal;
}

export function apiUrl(path: string, query: Record<string, QueryValue> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== "") params.set(key, String(value));
  }
  const search = params.toString();
  return search === "" ? path : `${path}?${search}`;
}

async function errorMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === "object" && body !== null && "error" in body && typeof body.error === "string") {
      return body.error;
    }
  } catch {
    // not JSON: fall through to the status line
  }
  return text.trim() === "" ? `${response.status} ${response.statusText}` : text.trim();
}

// --- Conditional GETs: a list polled every LIVE_REFRESH_MS is downloaded again only when it changed ---

/** The last JSON answer of each GET that carried an ETag, newest last; 304 answers reuse it. */
const lastAnswers = new Map<string, { etag: string; body: unknown }>();
/** Enough for every list a few open pages poll; the oldest is forgotten first. */
const MAX_LAST_ANSWERS = 32;

function rememberAnswer(url: string, etag: string, body: unknown): void {
  lastAnswers.delete(url);
  lastAnswers.set(url, { etag, body });
  const oldest = lastAnswers.keys().next().value;
  if (lastAnswers.size > MAX_LAST_ANSWERS && oldest !== undefined) lastAnswers.delete(oldest);
}

/** Sends one request; resolves with the parsed JSON (or text) body, rejects with an ApiError. */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: options.accept ?? "application/json" };
  if (hooks.token !== undefined) headers["authorization"] = `Bearer ${hooks.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const method = options.method ?? "GET";
  const url = apiUrl(path, options.query);
  // Keyed by the session too: another user's answer is never reused.
  const answerKey = `${hooks.token ?? ""} ${url}`;
  const last = method === "GET" ? lastAnswers.get(answerKey) : undefined;
  if (last !== undefined) headers["if-none-match"] = last.etag;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: options.body === undefined ? null : JSON.stringify(options.body),
      signal: options.signal ?? null,
    });
  } catch (error) {
    if (options.signal?.aborted === true) throw error;
    const message = "The dashboard server cannot be reached. Check your connection; retrying.";
    setUnreachable(message);
    throw new ApiError(0, message);
  }
  if (response.status === 502) {
    const message = await errorMessage(response);
    setUnreachable(message);
    throw new ApiError(502, message);
  }
  setUnreachable(undefined);
  if (response.status === 401 && hooks.token !== undefined) hooks.onUnauthorized();
  if (response.status === 304 && last !== undefined) {
    // Read to its (empty) end, or the browser counts the request as aborted.
    await response.arrayBuffer();
    return last.body as T;
  }
  if (!response.ok) throw new ApiError(response.status, await errorMessage(response));
  const type = response.headers.get("content-type") ?? "";
  if (!type.includes("json")) return (await response.text()) as T;
  const body: unknown = await response.json();
  const etag = response.headers.get("etag");
  if (method === "GET" && etag !== null) rememberAnswer(answerKey, etag, body);
  return body as T;
}

/**
 * The parts of an API error message about one input field (or its sub-fields): the API names
 * fields first, "a.b: message; c: message", so a form can show each message next to its field.
 */
export function errorForField(error: unknown, field: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const parts = error.message
    .split("; ")
    .filter((part) => part.startsWith(`${field}:`) || part.startsWith(`${field}.`));
  return parts.length === 0 ? undefined : parts.join("; ");
}
